import { ADMIN_ROUTE as admin, errorAnswer, errors, json, Strict } from './common.ts';
import { named } from './components.ts';
import { AdminTicket, TidParams } from './admin.ts';
import { TICKET_HOLDER_IN } from './ticket-holder.ts';
import { TICKET_NOTES_IN } from './ticket-notes.ts';
import { TICKET_GROUP_IN } from './ticket-group.ts';

export const updateTicketSchema = {
  ...admin,
  operationId: 'updateTicket',
  summary: "Change a ticket's gate notes (attention, checkin_text), its holder's email and its order (order_ref)",
  description:
    'At least one of the four; an absent one stays as it is. A change of the notes appends a `ticket_notes` change ' +
    "to the event's changes feed in the same transaction, so offline scanners learn it at their next sync; a " +
    'request that leaves them as they were appends nothing.',
  params: TidParams,
  body: named(
    'TicketNotesRequest',
    Strict(
      { ...TICKET_NOTES_IN, ...TICKET_HOLDER_IN, ...TICKET_GROUP_IN },
      'attention, checkin_text, email, order_ref, or several of them',
    ),
  ),
  response: {
    200: json('The ticket with its notes and email', AdminTicket),
    ...errors(400, 401),
    404: errorAnswer(404, { description: 'NOT_FOUND: no ticket has this tid' }),
    ...errors(413, 415, 429, 500),
  },
};
