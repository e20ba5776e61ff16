/**
 * A ticket's group: the tickets of one order or booking (`order_ref`), as the issuer answers
 * `GET /api/v1/events/{eid}/tickets/{tid}/group` (the asked ticket first; a ticket without an order
 * is alone). Checking a group in is one check-in per ticket, each judged by the rules on its own.
 */
import type { FoundHolder } from '@ticket-issuer/protocol';
import { isHolderSearchAnswer } from './holder-search.ts';

/** The issuer's answer: the order's reference (null: no order) and its tickets, the asked one first. */
export interface GroupAnswer {
  order_ref: string | null;
  tickets: FoundHolder[];
  /** Where the answer came from: the issuer (absent in its own answer), or this device's roster. */
  source?: 'issuer' | 'roster';
}

/** The group route of a ticket, beside the search route (`/api/v1/events/{eid}/tickets/…`). */
export function groupUrl(searchUrl: string, tid: string): string {
  return searchUrl.replace(/\/search$/, `/${encodeURIComponent(tid)}/group`);
}

/** Whether an answer is shaped as the group route's. */
export function isGroupAnswer(value: unknown): value is GroupAnswer {
  if (!isHolderSearchAnswer(value)) return false;
  const ref = (value as { order_ref?: unknown }).order_ref;
  return ref === null || typeof ref === 'string';
}

/** The members a group check-in offers: the others of the group who are not inside, not revoked. */
export function othersToCheckIn(group: GroupAnswer, tid: string): FoundHolder[] {
  return group.tickets.filter((t) => t.tid !== tid && !t.inside && t.status !== 'revoked');
}
