import type { DiscoveryDocument } from '@ticket-issuer/protocol';
import { type ScannerError, StateCorruptError } from './errors.ts';
import { STATE_FILES, type Storage } from './storage/storage.ts';

/** Who this scanner is (`scanner.json`): never the API key, which lives alone in `credentials.json`. */
export interface ScannerIdentity {
  /** The issuer's base URL (`iss`). */
  issuer: string;
  issuer_name: string;
  scanner_id: string;
  scanner_name: string;
  api_key_id: string;
  eid: string;
  event_name: string;
  event_date: string;
  /** The gate the key is scoped to, or null for every gate. */
  gate_id: string | null;
  key_expires_at: string;
  enrolled_at: string;
  /**
   * The key may find holders by name (`scope.allow_search`); absent in state written before the
   * field, or by an issuer without it: it may not.
   */
  allow_search?: boolean;
}

const corrupt = (file: string, what: string) => new StateCorruptError(file, what);

/** Parses a JSON state file into an object, or throws STATE_CORRUPT naming the file. */
function parseObject(text: string, file: string): Record<string, unknown> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw corrupt(file, 'not JSON');
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw corrupt(file, 'not a JSON object');
  return data as Record<string, unknown>;
}

/** Checks that the named fields are strings (or null where allowed). */
function requireStrings(data: Record<string, unknown>, file: string, fields: string[], nullable: string[] = []): void {
  for (const field of fields) {
    const value = data[field];
    const ok = typeof value === 'string' || (value === null && nullable.includes(field));
    if (!ok) throw corrupt(file, `field ${field} is missing or not a string`);
  }
}

/** Reads `scanner.json`; null when the directory holds no scanner. */
export async function readIdentity(storage: Storage): Promise<ScannerIdentity | null> {
  const file = STATE_FILES.scanner;
  const text = await storage.readFile(file);
  if (text === null) return null;
  const data = parseObject(text, file);
  requireStrings(
    data,
    file,
    [
      'issuer',
      'issuer_name',
      'scanner_id',
      'scanner_name',
      'api_key_id',
      'eid',
      'event_name',
      'event_date',
      'gate_id',
      'key_expires_at',
      'enrolled_at',
    ],
    ['gate_id'],
  );
  return data as unknown as ScannerIdentity;
}

/** Reads the API key from `credentials.json`. */
export async function readApiKey(storage: Storage): Promise<string> {
  const file = STATE_FILES.credentials;
  const text = await storage.readFile(file);
  if (text === null) throw corrupt(file, 'missing');
  const data = parseObject(text, file);
  requireStrings(data, file, ['api_key']);
  return data.api_key as string;
}

/** Checks the shape the scanner relies on; used for the issuer's answer and the cached copy alike. */
export function checkDiscovery(data: unknown, where: (what: string) => ScannerError): DiscoveryDocument {
  if (typeof data !== 'object' || data === null) throw where('not a JSON object');
  const doc = data as Partial<DiscoveryDocument>;
  if (typeof doc.iss !== 'string') throw where('iss is missing');
  const endpoints = doc.endpoints as Partial<DiscoveryDocument['endpoints']> | undefined;
  if (typeof endpoints?.enroll !== 'string' || typeof endpoints.check_in !== 'string') {
    throw where('endpoints.enroll or endpoints.check_in is missing');
  }
  if (!Array.isArray(doc.jwks?.keys)) throw where('jwks.keys is missing');
  return doc as DiscoveryDocument;
}

/** Reads the cached discovery document. */
export async function readDiscovery(storage: Storage): Promise<DiscoveryDocument> {
  const file = STATE_FILES.discovery;
  const text = await storage.readFile(file);
  if (text === null) throw corrupt(file, 'missing');
  return checkDiscovery(parseObject(text, file), (what) => corrupt(file, what));
}

/** The changes endpoint of the scanner's event (a pre-feed discovery document names none: the v1 path). */
export function changesUrl(discovery: DiscoveryDocument, eid: string): string {
  const template = discovery.endpoints.changes ?? `${discovery.iss}/api/v1/events/{eid}/changes`;
  return template.replace('{eid}', encodeURIComponent(eid));
}
