import { ticketTypeKey } from '@ticket-issuer/protocol';
import type { TicketTypeRecord } from '../store.ts';
import {
  DELETE_TICKET_TYPE_SQL,
  PUT_TICKET_TYPE_SQL,
  TICKET_LABELS_SQL,
  ticketTypeValues,
} from '../ticket-type-sql.ts';
import { all, type Db, numbered } from './queries.ts';

const PUT = numbered(PUT_TICKET_TYPE_SQL);
const DELETE = numbered(DELETE_TICKET_TYPE_SQL);
const LABELS = numbered(TICKET_LABELS_SQL);

/** Declares a ticket type, or replaces the declaration of its label (any spelling), in one statement. */
export async function putTicketType(db: Db, type: TicketTypeRecord): Promise<void> {
  await db.query(PUT, ticketTypeValues(type, type.attention));
}

export async function deleteTicketType(db: Db, eid: string, typeKey: string): Promise<boolean> {
  const result = await db.query(DELETE, [eid, ticketTypeKey(typeKey)]);
  return (result.rowCount ?? 0) > 0;
}

export async function listTicketLabels(db: Db, eid: string): Promise<string[]> {
  return (await all<{ label: string }>(db, LABELS, [eid, eid])).map((row) => row.label);
}
