/** The scanner's ticket answers: a check-in's, an exit's and the status, and what they say for the gate. */
import { Type } from '@sinclair/typebox';
import { CHECK_IN_OUTCOMES, TICKET_STATES } from '@ticket-issuer/protocol';
import { named, StringEnum } from './components.ts';
import { Nullable, Text } from './common.ts';

/** What an entry's answer and the status add to a ticket: its entries and the notes for the gate. */
const AT_THE_GATE = {
  entries: Type.Integer({
    minimum: 0,
    description:
      'the ticket’s count of entries (re-entries included, annulled ones not); a `valid` answer counts itself',
  }),
  attention: Type.Boolean({ description: 'the holder needs attention (the ticket type’s flag or the ticket’s)' }),
  checkin_texts: Type.Array(Type.String(), { description: 'texts for the gate: the ticket type’s, then the ticket’s' }),
};
const AT_THE_GATE_OPTIONAL = {
  entries: Type.Optional(AT_THE_GATE.entries),
  attention: Type.Optional(AT_THE_GATE.attention),
  checkin_texts: Type.Optional(AT_THE_GATE.checkin_texts),
};

const CheckInTicket = named(
  'CheckInTicket',
  Type.Object(
    {
      tid: Type.String(),
      eid: Type.String(),
      holder_name: Type.Optional(Type.String()),
      ticket_type: Type.Optional(Type.String()),
      checked_in_at: Type.Optional(Nullable(Type.String(), { description: 'ISO 8601 UTC timestamp' })),
      ...AT_THE_GATE_OPTIONAL,
    },
    { description: 'The ticket as the gate sees it; `wrong_event` carries only `tid` and its own `eid`' },
  ),
);

export const CheckInAnswer = named(
  'CheckInAnswer',
  Type.Object({
    status: StringEnum(
      CHECK_IN_OUTCOMES.filter((o) => o !== 'invalid_signature'),
      { description: 'the outcome; `valid` is the only one that admits' },
    ),
    ticket: CheckInTicket,
  }),
);

export const InvalidSignatureAnswer = named(
  'InvalidSignatureAnswer',
  Type.Object(
    {
      status: StringEnum(['invalid_signature']),
      ticket: Type.Null(),
      error: Type.Object({
        code: StringEnum(['INVALID_SIGNATURE']),
        message: Type.String(),
        details: Type.Object({}, { additionalProperties: true }),
      }),
    },
    { description: 'The scan reported a signature that does not verify; kept in the scan log for audit' },
  ),
);

export const CheckOutAnswer = named(
  'CheckOutAnswer',
  Type.Object({
    status: StringEnum(['checked_out', 'not_inside', 'revoked', 'wrong_event'], {
      description: '`checked_out`: the holder went out; `not_inside`: never came in, or already out',
    }),
    ticket: Type.Object(
      {
        tid: Type.String(),
        eid: Type.String(),
        holder_name: Type.Optional(Type.String()),
        ticket_type: Type.Optional(Type.String()),
        checked_in_at: Type.Optional(Nullable(Type.String())),
        checked_out_at: Type.Optional(Nullable(Type.String(), { description: 'the last exit, ISO 8601 UTC' })),
      },
      { description: 'The ticket; `wrong_event` carries only `tid` and its own `eid`' },
    ),
  }),
);

export const TicketParams = Type.Object({ tid: Text(128) });

export const StatusAnswer = named(
  'TicketStatus',
  Type.Object(
    {
      tid: Type.String(),
      eid: Type.String(),
      status: StringEnum(TICKET_STATES),
      holder_name: Type.String(),
      ticket_type: Type.String(),
      issued_at: Type.String({ description: 'ISO 8601 UTC timestamp' }),
      checked_in_at: Nullable(Type.String(), { description: 'ISO 8601 UTC timestamp; null when not used' }),
      inside: Type.Boolean({ description: 'whether the holder is inside now (came in and has not gone out)' }),
      checked_out_at: Nullable(Type.String(), {
        description: 'ISO 8601 UTC timestamp: when the holder went out; null when they are not out',
      }),
      ...AT_THE_GATE,
    },
    { description: "A ticket's current state" },
  ),
);
