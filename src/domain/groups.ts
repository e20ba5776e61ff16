import type { Store, TicketRecord } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { IssuerError } from './errors.ts';
import type { EventEntryRules } from './event-settings.ts';
import { normalShortCode } from './short-codes.ts';
import { holderAtGate } from './find-holders.ts';
import { toStored } from './time.ts';

/** The most tickets a group answer lists (the asked one included). */
export const MAX_GROUP_TICKETS = 500;

export interface GroupDeps {
  store: Store;
  clock: Clock;
  rules: (eid: string) => Promise<EventEntryRules>;
}

/** The answer for a ticket the event does not hold: the one an unknown tid gets. */
const unknownTicket = () => new IssuerError('NOT_FOUND', 'no ticket has this tid');

/** A ticket of the event, or the unknown ticket's 404 (another event's ticket is no more known here). */
async function ticketOfEvent(store: Store, eid: string, tid: string): Promise<TicketRecord> {
  const ticket = await store.tickets.getTicket(tid);
  if (!ticket || ticket.eid !== eid) throw unknownTicket();
  return ticket;
}

/**
 * A ticket's group: the tickets of its order (`order_ref`), the asked one first, each with its state,
 * whether its holder is inside and the notes for the gate, as the status and the holder search say
 * them. A ticket without an order is a group of itself alone. Checking a group in is one check-in per
 * ticket, each judged on its own: this only lists them.
 */
export async function ticketGroup(deps: GroupDeps, eid: string, tid: string) {
  const asked = await ticketOfEvent(deps.store, eid, tid);
  const [members, rules, presence] = await Promise.all([
    asked.order_ref === null
      ? Promise.resolve([])
      : deps.store.roster.listOrder(eid, asked.order_ref, MAX_GROUP_TICKETS),
    deps.rules(eid),
    deps.store.checkIns.getPresence(tid),
  ]);
  const now = toStored(deps.clock.now());
  const view = (ticket: TicketRecord, inside: boolean) => holderAtGate(ticket, inside, rules, now);
  const others = members.filter((m) => m.ticket.tid !== tid).slice(0, MAX_GROUP_TICKETS - 1);
  return {
    order_ref: asked.order_ref,
    tickets: [view(asked, presence?.inside === true), ...others.map((m) => view(m.ticket, m.inside))],
  };
}

/**
 * The ticket a typed short code names, as a gate needs it to check the ticket in by its tid: case,
 * dashes and spaces ignored. A code no ticket of the event has, or one that cannot be a code, gets
 * the answer an unknown ticket gets.
 */
export async function ticketByCode(store: Store, eid: string, typed: string) {
  const code = normalShortCode(typed);
  const ticket = code === null ? null : await store.roster.findByShortCode(eid, code);
  if (!ticket) throw unknownTicket();
  return { tid: ticket.tid, holder_name: ticket.holder_name, ticket_type: ticket.ticket_type };
}
