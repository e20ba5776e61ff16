/** The stored form of what the changes feed taught (`knowledge.json`), and the check it must pass when read. */
import { StateCorruptError } from './errors.ts';

/** `knowledge.json`: the snapshot; the knowledge journal holds what came after it. */
export interface StoredKnowledge {
  cursor: string | null;
  last_sync_at: string | null;
  /** When a sync last read the gates after the feed (absent in files written before it existed). */
  rules_synced_at?: string | null;
  revoked: string[];
  /** `[tid, jti]` pairs; a null jti supersedes every token of that tid without a jti. */
  superseded: [string, string | null][];
  checked_in: string[];
  /** `[tid, checked_in_at, gate_id]` of the feed's check-ins (absent in files written before it existed). */
  check_ins?: [string, string, string | null][];
  /** Tickets whose holder went out (their last entry or exit in the feed was an exit). */
  out?: string[];
  /** `[tid, at]`: when each of those holders last went out (absent in files written before it existed). */
  out_at?: [string, string][];
  /** `[tid, [at…]]`: the `at` of each of the feed's check-ins (absent in files written before it existed). */
  entries?: [string, string[]][];
  /** `[tid, [key…]]`: each of those check-ins' idempotency key, null where the feed named none. */
  entry_keys?: [string, (string | null)[]][];
  /** `[tid, attention, checkin_text]` of the feed's ticket notes (absent in files written before it existed). */
  notes?: [string, boolean, string | null][];
  /**
   * `[tid, moves]`: each ticket's entries (`i`) and exits (`o`) in feed order, less the annulled
   * entries (absent in files written before it existed: made from what they hold).
   */
  moves?: [string, string][];
  /** Tickets whose every entry the feed told was annulled since (absent in files written before it existed). */
  undone?: string[];
  /**
   * The id the knowledge journal's lines written after this snapshot carry (absent in files written
   * before the journal: their device keeps no such lines yet).
   */
  log?: string;
}

const strings = (value: unknown) => Array.isArray(value) && value.every((v) => typeof v === 'string');
const stringOrNull = (value: unknown) => value === null || typeof value === 'string';
/** A list of tuples, each checked by `item`; absent is allowed where `optional`. */
const listOf = (value: unknown, item: (v: unknown[]) => boolean, optional = true) =>
  (optional && value === undefined) || (Array.isArray(value) && value.every((v) => Array.isArray(v) && item(v)));

/** Each list field's check, in the order the file's fields are checked. */
const LISTS: [field: keyof StoredKnowledge, ok: (value: unknown) => boolean][] = [
  ['revoked', strings],
  ['checked_in', strings],
  ['superseded', (v) => listOf(v, (p) => p.length === 2 && typeof p[0] === 'string' && stringOrNull(p[1]), false)],
  [
    'check_ins',
    (v) =>
      listOf(v, (p) => p.length === 3 && typeof p[0] === 'string' && typeof p[1] === 'string' && stringOrNull(p[2])),
  ],
  ['out', (v) => v === undefined || strings(v)],
  ['undone', (v) => v === undefined || strings(v)],
  ['out_at', (v) => listOf(v, (p) => p.length === 2 && typeof p[0] === 'string' && typeof p[1] === 'string')],
  ['entries', (v) => listOf(v, (e) => e.length === 2 && typeof e[0] === 'string' && strings(e[1]))],
  [
    'entry_keys',
    (v) =>
      listOf(v, (e) => e.length === 2 && typeof e[0] === 'string' && Array.isArray(e[1]) && e[1].every(stringOrNull)),
  ],
  [
    'notes',
    (v) =>
      listOf(v, (n) => n.length === 3 && typeof n[0] === 'string' && typeof n[1] === 'boolean' && stringOrNull(n[2])),
  ],
  [
    'moves',
    (v) =>
      listOf(v, (m) => m.length === 2 && typeof m[0] === 'string' && typeof m[1] === 'string' && /^[io]*$/.test(m[1])),
  ],
];

/** Reads `knowledge.json`'s text; anything malformed is STATE_CORRUPT naming `file` and the field. */
export function checkSnapshot(text: string, file: string): StoredKnowledge {
  const corrupt = (what: string) => new StateCorruptError(file, what);
  let data: Partial<StoredKnowledge>;
  try {
    data = JSON.parse(text) as Partial<StoredKnowledge>;
  } catch {
    throw corrupt('not JSON');
  }
  if (typeof data !== 'object' || data === null) throw corrupt('not an object');
  for (const field of ['cursor', 'last_sync_at'] as const) {
    if (!stringOrNull(data[field])) throw corrupt(`field ${field} is malformed`);
  }
  if (!stringOrNull(data.rules_synced_at ?? null)) throw corrupt('field rules_synced_at is malformed');
  for (const [field, ok] of LISTS) if (!ok(data[field])) throw corrupt(`field ${field} is malformed`);
  if (data.log !== undefined && typeof data.log !== 'string') throw corrupt('field log is malformed');
  return data as StoredKnowledge;
}
