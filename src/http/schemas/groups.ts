import { Type } from '@sinclair/typebox';
import { named } from './components.ts';
import { errorAnswer, errors, Id, json, Nullable, ScannerAuth } from './common.ts';
import { EXAMPLE } from './examples.ts';
import { HOLDER_AT_GATE } from './ticket-finder.ts';

const GroupTicket = named('GroupTicket', Type.Object(HOLDER_AT_GATE, { description: 'A ticket of a group' }));

const unknownTicket = errorAnswer(404, {
  description: 'NOT_FOUND: the event has no such ticket (a ticket of another event is not found either)',
});

export const ticketGroupSchema = {
  operationId: 'getTicketGroup',
  summary: "A ticket's group: the tickets of its order",
  description:
    'The tickets that share the asked ticket’s `order_ref`, the asked one first (then in tid order, at most 500 in ' +
    'all); a ticket without `order_ref` is a group of itself alone. Checking a group in is one check-in per ticket ' +
    '(the upload `POST /api/v1/tickets/scans` serves), each judged by the rules on its own. Rate limited like the ' +
    'status endpoint.',
  tags: ['scanner'],
  security: ScannerAuth,
  params: Type.Object({ eid: Id(), tid: Id() }),
  response: {
    200: json(
      'The group, the asked ticket first',
      named(
        'TicketGroup',
        Type.Object({
          order_ref: Nullable(Type.String(), { description: 'the order the group is; null: the ticket has none' }),
          tickets: Type.Array(GroupTicket),
        }),
      ),
      {
        examples: {
          group: {
            summary: 'Two tickets of one booking, one holder inside already',
            value: {
              order_ref: 'ORDER-1042',
              tickets: [
                {
                  tid: EXAMPLE.tid,
                  holder_name: 'Ada Lovelace',
                  ticket_type: 'GA',
                  status: 'valid',
                  inside: false,
                  attention: false,
                  checkin_texts: [],
                },
                {
                  tid: '01JTQ5B3D5F7H9K1M3N5Q7S9W2',
                  holder_name: 'Byron Lovelace',
                  ticket_type: 'Child',
                  status: 'checked_in',
                  inside: true,
                  attention: true,
                  checkin_texts: ['Wristband for under 12s'],
                },
              ],
            },
          },
        },
      },
    ),
    ...errors(400, 401),
    403: errorAnswer(403, { description: 'FORBIDDEN: the key is for another event' }),
    404: unknownTicket,
    ...errors(429, 500),
  },
};

export const ticketByCodeSchema = {
  operationId: 'getTicketByCode',
  summary: 'The ticket a short code names (typed at the gate when the QR code will not scan)',
  description:
    'Case, dashes and spaces are ignored, and I or L read as 1, O as 0 (Crockford). Check the answered `tid` in as ' +
    'usual. A code no ticket of the event has answers as an unknown ticket does. Rate limited like the status endpoint.',
  tags: ['scanner'],
  security: ScannerAuth,
  params: Type.Object({
    eid: Id(),
    code: Type.String({ minLength: 1, maxLength: 64, description: 'the short code as typed, e.g. `k7m2q-9xw4d`' }),
  }),
  response: {
    200: json(
      'The ticket',
      named(
        'TicketByCode',
        Type.Object({ tid: Type.String(), holder_name: Type.String(), ticket_type: Type.String() }),
      ),
      {
        examples: {
          found: { summary: 'A code', value: { tid: EXAMPLE.tid, holder_name: 'Ada Lovelace', ticket_type: 'GA' } },
        },
      },
    ),
    ...errors(400, 401),
    403: errorAnswer(403, { description: 'FORBIDDEN: the key is for another event' }),
    404: errorAnswer(404, { description: 'NOT_FOUND: no ticket of the event has this code' }),
    ...errors(429, 500),
  },
};
