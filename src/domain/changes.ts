import type { ChangeRecord, Store } from '../store/store.ts';
import { invalidRequest } from './errors.ts';
import { toWire } from './time.ts';

/** Page sizes of the changes feed (CONTRACT.md: 1 to 1000, default 500). */
export const CHANGES_DEFAULT_LIMIT = 500;
export const CHANGES_MAX_LIMIT = 1000;

/**
 * Cursors are opaque to clients: a versioned, base64url-wrapped feed position, so that the form can
 * change without breaking a client that only passes `next_cursor` back.
 */
export function encodeCursor(position: number): string {
  return Buffer.from(`c1:${position}`).toString('base64url');
}

/** The position a cursor stands for, or INVALID_REQUEST naming `after`. */
export function decodeCursor(cursor: string): number {
  const match = /^c1:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  if (!match || encodeCursor(Number(match[1])) !== cursor) {
    throw invalidRequest('after is not a cursor this issuer gave; pass next_cursor back as it was', [
      { field: 'after', problem: 'not a cursor of this feed' },
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
      return { type: change.type, tid: change.tid, at, scanner_id: change.scanner_id ?? '', gate_id: change.gate_id };
    case 'revoked':
      return { type: change.type, tid: change.tid, at };
    case 'token_superseded':
      return { type: change.type, tid: change.tid, jti: change.jti, at };
  }
}

/** One page of an event's changes after the cursor; `next_cursor` is always given, even at the end. */
export async function readChanges(store: Store, eid: string, query: { after?: string; limit?: string }) {
  const after = query.after === undefined ? 0 : decodeCursor(query.after);
  const limit = changesLimit(query.limit);
  const { items, has_more } = await store.listChanges(eid, after, limit);
  const last = items[items.length - 1]?.position ?? after;
  return { changes: items.map(changeView), next_cursor: encodeCursor(last), has_more };
}
