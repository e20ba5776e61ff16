import { gateNotes, rulesFor } from '@ticket-issuer/protocol';
import type { Store, TicketRecord } from '../store/store.ts';
import { searchKey } from '../store/search-key.ts';
import type { Clock } from './clock.ts';
import { invalidRequest } from './errors.ts';
import type { EventEntryRules } from './event-settings.ts';
import { ticketState } from './ticket-state.ts';
import { toStored } from './time.ts';

/** The fewest letters or digits a search takes: fewer would list holders nobody at the gate asked for. */
export const MIN_QUERY_CHARACTERS = 3;
/** The most holders one search answers. */
export const MAX_HOLDERS_FOUND = 10;

export interface FindHoldersDeps {
  store: Store;
  clock: Clock;
  rules: (eid: string) => Promise<EventEntryRules>;
}

/**
 * Finding a holder whose phone died: at most ten of the event's tickets whose holder name contains
 * the query (case, accents and punctuation ignored), best matches first, each with its state, whether
 * the holder is inside, and the notes for the gate. The query must hold at least three letters or
 * digits: `q` counts what the search compares, so `"a.b"` or three spaces are refused, not a list.
 */
export async function findHolders(deps: FindHoldersDeps, eid: string, query: string) {
  if (searchKey(query).length < MIN_QUERY_CHARACTERS) {
    throw invalidRequest(`q must hold at least ${MIN_QUERY_CHARACTERS} letters or digits`, [
      { field: 'q', problem: `must hold at least ${MIN_QUERY_CHARACTERS} letters or digits` },
    ]);
  }
  const [matches, rules] = await Promise.all([
    deps.store.tickets.findHolders(eid, query, MAX_HOLDERS_FOUND),
    deps.rules(eid),
  ]);
  const now = toStored(deps.clock.now());
  return { tickets: matches.map(({ ticket, inside }) => holderAtGate(ticket, inside, rules, now)) };
}

/**
 * A ticket as a gate sees its holder (the holder search and a ticket's group): its state now, whether
 * the holder is inside, and the notes for the gate of its type and its own.
 */
export function holderAtGate(ticket: TicketRecord, inside: boolean, rules: EventEntryRules, now: string) {
  return {
    tid: ticket.tid,
    holder_name: ticket.holder_name,
    ticket_type: ticket.ticket_type,
    status: ticketState(ticket, now),
    inside,
    ...gateNotes(rulesFor(rules.types, ticket.ticket_type), ticket),
  };
}
