import { gateNotes, rulesFor } from '@ticket-issuer/protocol';
import type { ApiKeyRecord, Store } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { IssuerError } from './errors.ts';
import type { EventEntryRules } from './event-settings.ts';
import { checkScannerScope } from './scanner-scope.ts';
import { scannerStatusView } from './ticket-state.ts';
import { toStored } from './time.ts';

export interface TicketStatusDeps {
  store: Store;
  clock: Clock;
  rules: (eid: string) => Promise<EventEntryRules>;
}

/**
 * A ticket's status as a scanner of its event reads it (`GET /api/v1/tickets/{tid}/status`): its state,
 * whether the holder is inside and since when out, its counted entries and the notes for the gate. An
 * unknown tid: 404; a ticket of another event than the key's: 403.
 */
export async function ticketStatus(deps: TicketStatusDeps, key: ApiKeyRecord, tid: string) {
  const ticket = await deps.store.tickets.getTicket(tid);
  if (!ticket) throw new IssuerError('NOT_FOUND', 'no ticket has this tid');
  checkScannerScope(key, { ticketEid: ticket.eid });
  const [presence, entries, rules] = await Promise.all([
    deps.store.checkIns.getPresence(ticket.tid),
    deps.store.checkIns.getEntries(ticket.tid),
    deps.rules(ticket.eid),
  ]);
  const notes = gateNotes(rulesFor(rules.types, ticket.ticket_type), ticket);
  return scannerStatusView(ticket, presence, toStored(deps.clock.now()), { entries: entries.length, ...notes });
}
