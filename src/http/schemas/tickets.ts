import { Type } from '@sinclair/typebox';
import { CHECK_IN_OUTCOMES, TICKET_STATES } from '@ticket-issuer/protocol';
import { BearerAuth, ErrorBody, ErrorEnvelope, errors, Id, InstantIn, Nullable, Text } from './common.ts';

export const CheckInBody = Type.Object({
  tid: Id(),
  eid: Id(),
  scanned_at: InstantIn,
  scanner_id: Id(),
  gate_id: Type.Optional(Id()),
  idempotency_key: Type.Optional(
    Type.String({ maxLength: 64, pattern: '^[\\x21-\\x7e]*$', description: 'UUID; or the Idempotency-Key header' }),
  ),
  ticket_token: Type.Optional(
    Type.String({ minLength: 1, maxLength: 4096, description: 'the scanned QR string (compact JWS)' }),
  ),
  signature_valid: Type.Optional(Type.Boolean({ description: "the scanner's own verdict on the signature" })),
  admitted_offline: Type.Optional(
    Type.Boolean({ description: 'the scanner already let the holder in on its own offline verdict' }),
  ),
});

export const CheckInHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ maxLength: 64 })),
});

const ScannerTicket = Type.Object({
  tid: Type.String(),
  eid: Type.String(),
  holder_name: Type.Optional(Type.String()),
  ticket_type: Type.Optional(Type.String()),
  checked_in_at: Type.Optional(Nullable(Type.String())),
});

export const CheckInAnswer = Type.Object({
  status: Type.Union(CHECK_IN_OUTCOMES.filter((o) => o !== 'invalid_signature').map((o) => Type.Literal(o))),
  ticket: ScannerTicket,
});

/** A 400: either the invalid_signature outcome (status and ticket: null beside the error) or the plain envelope. */
const CheckInRejection = Type.Union([
  Type.Object({ status: Type.Literal('invalid_signature'), ticket: Type.Null(), error: ErrorBody }),
  ErrorEnvelope,
]);

export const checkInSchema = {
  summary: 'Check a ticket in (idempotent)',
  tags: ['scanner'],
  security: BearerAuth,
  body: CheckInBody,
  headers: CheckInHeaders,
  response: { 200: CheckInAnswer, 400: CheckInRejection, ...errors(401, 403, 404, 409, 413, 415, 429, 500) },
};

export const TicketParams = Type.Object({ tid: Text(128) });

export const StatusAnswer = Type.Object({
  tid: Type.String(),
  eid: Type.String(),
  status: Type.Union(TICKET_STATES.map((state) => Type.Literal(state))),
  holder_name: Type.String(),
  ticket_type: Type.String(),
  issued_at: Type.String(),
  checked_in_at: Nullable(Type.String()),
});

export const statusSchema = {
  summary: "Read a ticket's current state",
  tags: ['scanner'],
  security: BearerAuth,
  params: TicketParams,
  response: { 200: StatusAnswer, ...errors(400, 401, 403, 404, 429, 500) },
};
