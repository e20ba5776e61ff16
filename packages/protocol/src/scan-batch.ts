import type { AnnulRequestBody } from './annul.ts';
import type { CheckInRequestBody } from './wire.ts';

/** The most scans one upload (`POST /api/v1/tickets/scans`) may carry. */
export const MAX_SCANS_PER_UPLOAD = 500;

/** The largest body of one upload, in bytes (each scan in it is still bounded like a single one). */
export const UPLOAD_BODY_LIMIT_BYTES = 1024 * 1024;

/** What a scan of an upload asks for: the single endpoint it stands for. */
export const SCAN_ACTIONS = ['check_in', 'check_out', 'annul'] as const;
export type ScanAction = (typeof SCAN_ACTIONS)[number];

/** One scan of an upload: the action, then that endpoint's body. */
export type ScanUploadItem = { action: 'check_in' | 'check_out' } & CheckInRequestBody;

/** An annul of an upload, sent after the scan it undoes. */
export type ScanUploadAnnul = { action: 'annul' } & AnnulRequestBody;

/** The body of `POST /api/v1/tickets/scans`. */
export interface ScanUpload {
  scans: ScanUploadItem[];
}

/** What the single endpoint would have answered one scan: its status and its body, exactly. */
export interface ScanUploadResult {
  idempotency_key: string | null;
  status_code: number;
  body: unknown;
}

/** The answer of an upload: one result per scan, in the order sent. */
export interface ScanUploadAnswer {
  results: ScanUploadResult[];
}
