import type { RosterPosition, RosterTicket, Store } from '../store/store.ts';
import { invalidRequest } from './errors.ts';
import { codeDigestNow, shownShortCode } from './short-codes.ts';

/** A roster page's default and largest size (as the changes feed's). */
export const ROSTER_LIMIT = { default: 500, max: 1000 } as const;

/** Before every ticket: where a device without a cursor starts. */
const START: RosterPosition = { version: 0, tid: '' };

const CURSOR_SHAPE = /^(\d{1,15})\.([\x21-\x7e]{0,128})$/;

/** A roster cursor as a device sends it back (`<version>.<tid>`), or the start; 400 naming `cursor` otherwise. */
export function rosterCursor(cursor: string | undefined): RosterPosition {
  if (cursor === undefined) return START;
  const match = CURSOR_SHAPE.exec(cursor);
  if (!match)
    throw invalidRequest('cursor is not one this issuer answered', [{ field: 'cursor', problem: 'malformed' }]);
  return { version: Number(match[1]), tid: match[2]! };
}

const cursorOf = (position: RosterPosition): string => `${position.version}.${position.tid}`;

export interface RosterQuery {
  cursor?: string;
  limit?: number;
}

/**
 * A page of the event's roster after the cursor, and the cursor to ask from next: the last ticket's
 * position, else the one asked from (a device at the end asks again later from there). A ticket comes
 * again each time what the roster shows of it changes; the latest one holds.
 */
async function rosterPageOf(store: Store, eid: string, query: RosterQuery) {
  const after = rosterCursor(query.cursor);
  const page = await store.roster.listRoster(eid, after, query.limit ?? ROSTER_LIMIT.default);
  const last = page.items[page.items.length - 1];
  return { page, next_cursor: cursorOf(last?.position ?? after), has_more: page.has_more };
}

/**
 * What a device keeps of a ticket to find holders and groups and resolve short codes offline: the
 * ticket's own gate notes (the type's come with the rules, as the feed's `ticket_notes` do), and
 * `revoked: true` for a ticket revoked since, which a device drops.
 */
const rosterEntry = ({ ticket }: RosterTicket) => ({
  tid: ticket.tid,
  holder_name: ticket.holder_name,
  ticket_type: ticket.ticket_type,
  order_ref: ticket.order_ref,
  attention: ticket.attention,
  checkin_text: ticket.checkin_text,
  short_code: shownShortCode(ticket.short_code),
  revoked: ticket.revoked_at !== null,
});

/** The offline roster, a page at a time, changes since the cursor (keys with `allow_search` only: the route's scope). */
export async function readRoster(store: Store, eid: string, query: RosterQuery) {
  const { page, next_cursor, has_more } = await rosterPageOf(store, eid, query);
  return { tickets: page.items.map(rosterEntry), next_cursor, has_more };
}

/**
 * The event's short codes as digests, for devices without the roster: a typed code's digest names its
 * ticket and its type (a device judges a type's gates and hours offline), no name. Paged and changing as
 * the roster does (a ticket's line may come again).
 */
export async function readCodes(store: Store, eid: string, query: RosterQuery) {
  const { page, next_cursor, has_more } = await rosterPageOf(store, eid, query);
  const codes = page.items.map(({ ticket }) => ({
    digest: codeDigestNow(ticket.short_code),
    tid: ticket.tid,
    ticket_type: ticket.ticket_type,
  }));
  return { codes, next_cursor, has_more };
}
