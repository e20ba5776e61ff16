/** The scan queue's journal: the shape of its lines, and the check each line read back must pass. */
import { StateCorruptError } from './errors.ts';
import type { QueuedScan } from './queue.ts';

/** Where a holder went through this device, as the issuer answered: `[tid, 'inside' | 'out', number]`. */
export type Move = [string, HolderMove, number];
export type HolderMove = 'inside' | 'out';
/** An entry the issuer counted on this device's scan: `[tid, scanned_at, number]` (numbered as moves are). */
export type Entered = [string, string, number];

/**
 * Journal lines, one JSON object each: a new scan; the change of an online scan to an offline
 * verdict; acknowledgements (several keys per line); tickets this device admitted; holders this
 * device let in or out on the issuer's answer (numbered), the entries those answers counted (numbered
 * alike), and the number up to which the changes feed the device holds has them too.
 */
export type JournalEntry =
  | { op: 'scan'; scan: QueuedScan }
  | { op: 'offline'; key: string; admitted_offline: boolean; maybe_sent_plain: boolean; turned_away?: boolean }
  | { op: 'done'; keys: string[] }
  | { op: 'admitted'; tids: string[] }
  | { op: 'moved'; moves: Move[] }
  | { op: 'entered'; entries: Entered[] }
  | { op: 'moves_in_feed'; up_to: number };

export const ADMITTED_PER_LINE = 1000;

/** Checks a journal line's shape: a complete line that does not parse is corruption, never skipped. */
export function parseEntry(line: string, lineNumber: number): JournalEntry {
  const corrupt = () => new StateCorruptError('journal.jsonl', `line ${lineNumber} is not a journal entry`);
  let entry: Partial<Record<string, unknown>>;
  try {
    entry = JSON.parse(line) as Partial<Record<string, unknown>>;
  } catch {
    throw corrupt();
  }
  const strings = (value: unknown) => Array.isArray(value) && value.every((v) => typeof v === 'string');
  const scan = entry.scan as Partial<QueuedScan> | undefined;
  const ok =
    (entry.op === 'scan' &&
      typeof scan === 'object' &&
      scan !== null &&
      typeof scan.idempotency_key === 'string' &&
      typeof scan.tid === 'string' &&
      typeof scan.ticket_token === 'string' &&
      typeof scan.scanned_at === 'string' &&
      typeof scan.admitted_offline === 'boolean') ||
    (entry.op === 'offline' && typeof entry.key === 'string') ||
    (entry.op === 'done' && strings(entry.keys)) ||
    (entry.op === 'admitted' && strings(entry.tids)) ||
    (entry.op === 'moved' && Array.isArray(entry.moves) && entry.moves.every(isMove)) ||
    (entry.op === 'entered' && Array.isArray(entry.entries) && entry.entries.every(isEntered)) ||
    (entry.op === 'moves_in_feed' && Number.isSafeInteger(entry.up_to));
  if (!ok) throw corrupt();
  return entry as JournalEntry;
}

function isEntered(value: unknown): value is Entered {
  return (
    Array.isArray(value) &&
    value.length === 3 &&
    typeof value[0] === 'string' &&
    typeof value[1] === 'string' &&
    Number.isSafeInteger(value[2])
  );
}

function isMove(value: unknown): value is Move {
  return (
    Array.isArray(value) &&
    value.length === 3 &&
    typeof value[0] === 'string' &&
    (value[1] === 'inside' || value[1] === 'out') &&
    Number.isSafeInteger(value[2])
  );
}
