import { createHash } from 'node:crypto';
import type { ChangeRecord, Store } from '../store/store.ts';
import { invalidRequest } from './errors.ts';
import { toWire } from './time.ts';

/** Page sizes of the changes feed (CONTRACT.md: 1 to 1000, default 500). */
export const CHANGES_DEFAULT_LIMIT = 500;
export const CHANGES_MAX_LIMIT = 1000;

/** A short digest of an event id: enough to tell one event's cursor from another's. */
function eventTag(eid: string): string {
  return createHash('sha256').update(eid).digest('base64url').slice(0, 12);
}

/**
 * Cursors are opaque to clients: a versioned, base64url-wrapped feed position and the event it
 * belongs to (`c2:<position>:<digest of eid>`), so that the form can change without breaking a
 * client that only passes `next_cursor` back, and a cursor of one event's feed is refused by another's.
 */
export function encodeCursor(eid: string, position: number): string {
  return Buffer.from(`c2:${position}:${eventTag(eid)}`).toString('base64url');
}

const notACursor = () =>
  invalidRequest('after is not a cursor this issuer gave; pass next_cursor back as it was', [
    { field: 'after', problem: 'not a cursor of this feed' },
  ]);

/**
 * The position a cursor of this event's feed stands for, or INVALID_REQUEST naming `after`. A cursor
 * of the first form (`c1:<position>`, given before cursors named their event) is still taken as its
 * position: see docs/decisions.md, "Cursors".
 */
export function decodeCursor(eid: string, cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('latin1');
  const match = /^c1:(\d{1,15})$/.exec(text) ?? /^c2:(\d{1,15}):([A-Za-z0-9_-]{12})$/.exec(text);
  // One spelling per cursor: base64url without padding, a position without leading zeros.
  if (!match || Buffer.from(text).toString('base64url') !== cursor || String(Number(match[1])) !== match[1]) {
    throw notACursor();
  }
  if (match[2] !== undefined && match[2] !== eventTag(eid)) {
    throw invalidRequest("after is a cursor of another event's feed; start this event's feed without after", [
      { field: 'after', problem: 'a cursor of another event' },
    ]);
  }
  return Number(match[1]);
}

/** `limit` as sent (digits, checked by the schema) within 1 to 1000. */
function changesLimit(limit: string | undefined): number {
  const value = limit === undefined ? CHANGES_DEFAULT_LIMIT : Number(limit);
  if (!Number.isInteger(value) || value < 1 || value > CHANGES_MAX_LIMIT) {
    throw invalidRequest(`limit must be a whole number from 1 to ${CHANGES_MAX_LIMIT}`, [
      { field: 'limit', problem: `must be from 1 to ${CHANGES_MAX_LIMIT}` },
    ]);
  }
  return value;
}

/** A change as the feed answers it. */
function changeView(change: ChangeRecord) {
  const at = toWire(change.at);
  switch (change.type) {
    case 'checked_in':
      return {
        type: change.type,
        tid: change.tid,
        at,
        scanner_id: change.scanner_id ?? '',
        gate_id: change.gate_id,
        idempotency_key: change.idempotency_key ?? null,
      };
    case 'checked_out':
      // An automatic exit at the start of an event day: no scanner, no gate.
      if (change.auto === true)
        return { type: change.type, tid: change.tid, at, scanner_id: null, gate_id: null, auto: true };
      return { type: change.type, tid: change.tid, at, scanner_id: change.scanner_id ?? '', gate_id: change.gate_id };
    case 'revoked':
      return { type: change.type, tid: change.tid, at };
    case 'token_superseded':
      return { type: change.type, tid: change.tid, jti: change.jti, at };
    case 'annulled':
      return {
        type: change.type,
        tid: change.tid,
        idempotency_key: change.idempotency_key ?? '',
        scanner_id: change.scanner_id ?? '',
        at,
      };
    case 'ticket_notes':
      return {
        type: change.type,
        tid: change.tid,
        attention: change.attention ?? false,
        checkin_text: change.checkin_text ?? null,
        at,
      };
  }
}

/** One page of an event's changes after the cursor; `next_cursor` is always given, even at the end. */
export async function readChanges(store: Store, eid: string, query: { after?: string; limit?: string }) {
  const after = query.after === undefined ? 0 : decodeCursor(eid, query.after);
  const limit = changesLimit(query.limit);
  const { items, has_more } = await store.feed.listChanges(eid, after, limit);
  const last = items[items.length - 1]?.position ?? after;
  return { changes: items.map(changeView), next_cursor: encodeCursor(eid, last), has_more };
}
