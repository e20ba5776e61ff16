import type { CheckInRequestBody, DiscoveryDocument, ScanUploadItem } from '@ticket-issuer/protocol';
import { MemoryStorage, Scanner, type ScannerOptions } from '../src/index.ts';
import { EID, ISS, type TestKey } from './keys.ts';

/** One request the fake issuer saw. */
export interface Seen {
  url: string;
  body: CheckInRequestBody;
}

/** What the fake issuer does with a check-in: an answer, or a thrown fetch failure. */
export type Handler = (body: CheckInRequestBody, seen: Seen[]) => Promise<Response> | Response;

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

export const outcome = (status: string, tid: string) =>
  json(status === 'invalid_signature' ? 400 : 200, { status, ticket: { tid, eid: EID } });

export const envelope = (status: number, code: string, message = code.toLowerCase(), headers = {}) =>
  json(status, { error: { code, message, details: {} } }, headers);

/** A fetch failure as undici reports one: TypeError with the socket error's code on `cause`. */
export function fetchFailure(code: string): TypeError {
  return new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) });
}

export function discovery(key: TestKey): DiscoveryDocument {
  return {
    iss: ISS,
    name: 'Test issuer',
    protocol_versions: ['1'],
    endpoints: {
      enroll: `${ISS}/api/v1/scanners/enroll`,
      check_in: `${ISS}/api/v1/tickets/check-in`,
      ticket_status: `${ISS}/api/v1/tickets/{tid}/status`,
      changes: `${ISS}/api/v1/events/{eid}/changes`,
    },
    jwks: { keys: [key.jwk] },
    ticket_token: { format: 'jws', alg: 'EdDSA' },
    max_offline_scan_age_seconds: 172800,
  };
}

/** An enrolled scanner state in memory. */
export function enrolledStorage(key: TestKey, gate: string | null = null): MemoryStorage {
  const storage = new MemoryStorage();
  const identity = {
    issuer: ISS,
    issuer_name: 'Test issuer',
    scanner_id: '6f1c2a52-8d0e-4d47-9d7a-1f3f0e0c0a11',
    scanner_name: 'test',
    api_key_id: 'sck_TEST',
    eid: EID,
    event_name: 'Test event',
    event_date: '2026-06-01T18:00:00Z',
    gate_id: gate,
    key_expires_at: '2026-06-03T00:00:00Z',
    enrolled_at: '2026-05-01T00:00:00Z',
  };
  storage.files.set('scanner.json', JSON.stringify(identity));
  storage.files.set('credentials.json', JSON.stringify({ api_key: 'sk_live_fake' }));
  storage.files.set('discovery.json', JSON.stringify(discovery(key)));
  return storage;
}

/**
 * What the fake issuer does with an upload (`POST /api/v1/tickets/scans`): `false`, an issuer from
 * before uploads (404); `true`, each scan answered by the handler as its single request would be
 * (seen as such); or a function answering the whole upload.
 */
export type Uploads = boolean | ((scans: ScanUploadItem[], seen: Seen[]) => Promise<Response> | Response);

/** Every upload the fake issuer received, each as its scans. */
export type UploadsSeen = ScanUploadItem[][];

/** Answers an upload scan by scan through the single-request handler. */
async function uploadThroughHandler(scans: ScanUploadItem[], handler: Handler, seen: Seen[]): Promise<Response> {
  const results = [];
  for (const { action, ...body } of scans) {
    seen.push({ url: `${ISS}/api/v1/tickets/${action === 'check_out' ? 'check-out' : 'check-in'}`, body });
    const res = await handler(body, seen);
    results.push({ idempotency_key: body.idempotency_key, status_code: res.status, body: await res.json() });
  }
  return json(200, { results });
}

/** The rules answer of an event that declares nothing. */
export const NO_RULES = {
  gates: [],
  reentry: false,
  timezone: 'UTC',
  day_starts_at: '00:00',
  auto_exit: false,
  ticket_types: [],
};

/** A fake fetch: check-ins go to the handler; the feed and the roster are empty; discovery and empty rules are served. */
export function fakeFetch(
  key: TestKey,
  handler: Handler,
  seen: Seen[] = [],
  uploads: Uploads = false,
  uploadsSeen: UploadsSeen = [],
): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input);
    if (url.includes('/changes')) return json(200, { changes: [], next_cursor: 'c1', has_more: false });
    if (url.endsWith('/rules')) return json(200, NO_RULES);
    if (url.endsWith('/gates')) return json(200, { gates: [], reentry: false });
    // The roster and the short codes: an event without tickets.
    if (/\/(roster|codes)\?/.test(url)) {
      const lines = url.includes('/roster?') ? { tickets: [] } : { codes: [] };
      return json(200, { ...lines, next_cursor: '0.', has_more: false });
    }
    if (url.endsWith('/.well-known/ticket-issuer.json')) return json(200, discovery(key));
    if (url.endsWith('/api/v1/tickets/scans')) {
      const { scans } = JSON.parse(String(init?.body)) as { scans: ScanUploadItem[] };
      uploadsSeen.push(scans);
      if (uploads === false) return envelope(404, 'NOT_FOUND', 'no route POST /api/v1/tickets/scans');
      return uploads === true ? uploadThroughHandler(scans, handler, seen) : uploads(scans, seen);
    }
    const body = JSON.parse(String(init?.body)) as CheckInRequestBody;
    seen.push({ url, body });
    return handler(body, seen);
  }) as typeof fetch;
}

/** An instant timer: sleeps are recorded, not waited. */
export function fakeTimer() {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

export async function openScanner(
  storage: MemoryStorage,
  key: TestKey,
  handler: Handler,
  options: ScannerOptions = {},
  uploads: Uploads = false,
) {
  const seen: Seen[] = [];
  const uploadsSeen: UploadsSeen = [];
  const scanner = await Scanner.open(storage, {
    fetch: fakeFetch(key, handler, seen, uploads, uploadsSeen),
    ...options,
  });
  return { scanner, seen, uploadsSeen };
}

/** The issuer's valid answer for any scan. */
export const valid: Handler = (body) => outcome('valid', body.tid);

/** The scans a storage keeps in refused.jsonl, with the issuer's error. */
export const refusedLines = (storage: MemoryStorage) =>
  (storage.files.get('refused.jsonl') ?? '')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { error: { code: string }; scan: { tid: string } });
