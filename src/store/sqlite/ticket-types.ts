import { ticketTypeKey } from '@ticket-issuer/protocol';
import type { TicketTypeRecord } from '../store.ts';
import {
  DELETE_TICKET_TYPE_SQL,
  PUT_TICKET_TYPE_SQL,
  TICKET_LABELS_SQL,
  ticketTypeValues,
} from '../ticket-type-sql.ts';
import type { SqliteContext } from './context.ts';

export function putTicketType(c: SqliteContext, type: TicketTypeRecord): Promise<void> {
  return c.tx(() => {
    c.run(PUT_TICKET_TYPE_SQL, ...ticketTypeValues(type, type.attention ? 1 : 0));
  });
}

export function deleteTicketType(c: SqliteContext, eid: string, typeKey: string): Promise<boolean> {
  return c.tx(() => c.run(DELETE_TICKET_TYPE_SQL, eid, ticketTypeKey(typeKey)) > 0);
}

export async function listTicketLabels(c: SqliteContext, eid: string): Promise<string[]> {
  return c.all<{ label: string }>(TICKET_LABELS_SQL, eid, eid).map((row) => row.label);
}
