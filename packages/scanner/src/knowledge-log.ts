/**
 * The knowledge journal (`knowledge.jsonl`): what each sync learned from the changes feed after the
 * snapshot in `knowledge.json`, one JSON line per page of the feed, each change kept as a compact
 * record of only what a device's knowledge reads; and the check each line read back must pass.
 */
import type { Change } from '@ticket-issuer/protocol';
import { StateCorruptError } from './errors.ts';
import { JOURNALS } from './storage/storage.ts';

/**
 * One change of the feed as the device keeps it: an entry `['i', tid, at, gate_id, idempotency_key]`
 * (`at` null where the feed gave none), an exit `['o', tid]`, a revocation `['r', tid]`, a superseded
 * token `['s', tid, jti]`, the ticket's notes `['n', tid, attention, checkin_text]`, an annulled entry
 * `['a', tid, idempotency_key]` (`['a', tid]`: the issuer named none).
 */
export type FeedRecord =
  | ['i', string, string | null, string | null, string | null]
  | ['o', string, (string | null)?]
  | ['r', string]
  | ['s', string, string | null]
  | ['n', string, boolean, string | null]
  | ['a', string, (string | null)?];

/** A page of the feed as the device applied it: its records and the cursor after it. */
export interface FeedPage {
  cursor: string;
  changes: FeedRecord[];
}

/**
 * A line of the knowledge journal: a page of the feed, or the end of a sync (when it pulled the feed
 * to its end, and read the rules). Each carries the id of the snapshot it follows (`log`): a line of
 * another id was written before that snapshot, which holds it already.
 */
export type KnowledgeLine =
  | ({ op: 'page'; log: string } & FeedPage)
  | { op: 'synced'; log: string; last_sync_at: string | null; rules_synced_at: string | null };

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * The record of a feed change, its fields as the knowledge reads them; null for a change of a type
 * this device does not know (a newer issuer) or without its ticket id.
 */
export function recordOf(change: Change): FeedRecord | null {
  if (typeof change.tid !== 'string') return null;
  const { tid } = change;
  switch (change.type) {
    case 'checked_in':
      return ['i', tid, text(change.at), text(change.gate_id), text(change.idempotency_key)];
    case 'checked_out':
      return ['o', tid, text(change.at)];
    case 'revoked':
      return ['r', tid];
    case 'token_superseded':
      return ['s', tid, text(change.jti)];
    case 'ticket_notes':
      return ['n', tid, change.attention === true, text(change.checkin_text) || null];
    case 'annulled':
      return change.idempotency_key === undefined ? ['a', tid] : ['a', tid, text(change.idempotency_key)];
    default:
      return null;
  }
}

const isText = (value: unknown) => value === null || typeof value === 'string';

/** Whether a value is a record as `recordOf` makes them. */
export function isFeedRecord(value: unknown): value is FeedRecord {
  if (!Array.isArray(value) || typeof value[1] !== 'string') return false;
  const [kind, , a, b, c] = value as unknown[];
  const size = value.length;
  if (kind === 'i') return size === 5 && isText(a) && isText(b) && isText(c);
  if (kind === 'o') return size === 2 || (size === 3 && isText(a));
  if (kind === 'r') return size === 2;
  if (kind === 's') return size === 3 && isText(a);
  if (kind === 'n') return size === 4 && typeof a === 'boolean' && isText(b);
  return kind === 'a' && (size === 2 || (size === 3 && isText(a)));
}

/**
 * Reads a complete line: a line that does not parse, or of this snapshot's id that is not a page or a
 * sync's end, is STATE_CORRUPT naming its number (never skipped). A line of another id is returned
 * with its id alone checked: its content is no longer read.
 */
export function parseKnowledgeLine(line: string, lineNumber: number, log: string | null): KnowledgeLine | 'stale' {
  const corrupt = () => new StateCorruptError(JOURNALS.knowledge, `line ${lineNumber} is not a knowledge entry`);
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    throw corrupt();
  }
  if (typeof entry !== 'object' || entry === null || typeof entry.log !== 'string') throw corrupt();
  if (entry.log !== log) return 'stale';
  const ok =
    (entry.op === 'page' &&
      typeof entry.cursor === 'string' &&
      Array.isArray(entry.changes) &&
      entry.changes.every(isFeedRecord)) ||
    (entry.op === 'synced' && isText(entry.last_sync_at) && isText(entry.rules_synced_at));
  if (!ok) throw corrupt();
  return entry as KnowledgeLine;
}
