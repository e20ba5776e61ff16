/** The scan queue's journal: the shape of its lines, and the check each line read back must pass. */
import type { HolderState } from '@ticket-issuer/protocol';
import { StateCorruptError } from './errors.ts';
import type { QueuedAnnul } from './queued-annul.ts';
import type { QueuedScan } from './queued-scan.ts';

/**
 * Where a holder went through this device, as the issuer answered: `[tid, 'inside' | 'out' |
 * 'unused', number]` (`unused`: an annul of the ticket's only entry).
 */
export type Move = [string, HolderMove, number];
export type HolderMove = HolderState;
/** An entry the issuer counted on this device's scan: `[tid, scanned_at, number]` (numbered as moves are). */
export type Entered = [string, string, number];
/**
 * An admission this device made (its verdict `admit`, or the issuer's `valid`), kept for an annul:
 * `[idempotency_key, tid, scanned_at, where the holder was before it, annulled]`.
 */
export type Admitted = [string, string, string, HolderState, boolean];
/**
 * An entry of this device the issuer annulled: `[idempotency_key, tid, scanned_at or null when this
 * device did not know it, number]` (numbered as moves are, until the changes feed has it).
 */
export type Annulled = [string, string, string | null, number];

/**
 * Journal lines, one JSON object each: a new scan; the change of an online scan to an offline
 * verdict; acknowledgements (several keys per line); tickets this device admitted; holders this
 * device let in or out on the issuer's answer (numbered), the entries those answers counted (numbered
 * alike), and the number up to which the changes feed the device holds has them too; this device's
 * admissions, a queued annul, annuls the issuer answered (numbered) and annuls it refused.
 */
export type JournalEntry =
  | { op: 'scan'; scan: QueuedScan }
  | { op: 'offline'; key: string; admitted_offline: boolean; maybe_sent_plain: boolean; turned_away?: boolean }
  | { op: 'done'; keys: string[] }
  | { op: 'admitted'; tids: string[] }
  | { op: 'moved'; moves: Move[] }
  | { op: 'entered'; entries: Entered[] }
  | { op: 'moves_in_feed'; up_to: number }
  | { op: 'admits'; admits: Admitted[] }
  | { op: 'annul'; annul: QueuedAnnul }
  | { op: 'annulled'; entries: Annulled[] }
  | { op: 'annul_refused'; keys: string[] };

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
    (entry.op === 'moves_in_feed' && Number.isSafeInteger(entry.up_to)) ||
    (entry.op === 'admits' && Array.isArray(entry.admits) && entry.admits.every(isAdmitted)) ||
    (entry.op === 'annul' && isQueuedAnnul(entry.annul)) ||
    (entry.op === 'annulled' && Array.isArray(entry.entries) && entry.entries.every(isAnnulled)) ||
    (entry.op === 'annul_refused' && strings(entry.keys));
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

const HOLDER_STATES: readonly unknown[] = ['unused', 'inside', 'out'] satisfies HolderState[];

function isMove(value: unknown): value is Move {
  return (
    Array.isArray(value) &&
    value.length === 3 &&
    typeof value[0] === 'string' &&
    HOLDER_STATES.includes(value[1]) &&
    Number.isSafeInteger(value[2])
  );
}

function isAdmitted(value: unknown): value is Admitted {
  return (
    Array.isArray(value) &&
    value.length === 5 &&
    typeof value[0] === 'string' &&
    typeof value[1] === 'string' &&
    typeof value[2] === 'string' &&
    HOLDER_STATES.includes(value[3]) &&
    typeof value[4] === 'boolean'
  );
}

function isAnnulled(value: unknown): value is Annulled {
  return (
    Array.isArray(value) &&
    value.length === 4 &&
    typeof value[0] === 'string' &&
    typeof value[1] === 'string' &&
    (value[2] === null || typeof value[2] === 'string') &&
    Number.isSafeInteger(value[3])
  );
}

function isQueuedAnnul(value: unknown): value is QueuedAnnul {
  const annul = value as Partial<QueuedAnnul> | null;
  return (
    typeof annul === 'object' &&
    annul !== null &&
    annul.action === 'annul' &&
    typeof annul.idempotency_key === 'string' &&
    typeof annul.tid === 'string' &&
    typeof annul.annulled_at === 'string' &&
    typeof annul.entry_at === 'string' &&
    HOLDER_STATES.includes(annul.before)
  );
}
