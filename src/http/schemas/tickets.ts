/** The scanner's ticket operations: check-in, exit and status, with the request they share. */
import { Type } from '@sinclair/typebox';
import { ErrorEnvelope, errorAnswer, errorExample, errors, json, ScannerAuth } from './common.ts';
import { EXAMPLE } from './examples.ts';
// The request first: the OpenAPI document lists the named schemas in the order they are declared.
import { CheckInBody, CheckInHeaders } from './ticket-request.ts';
import { CheckInAnswer, CheckOutAnswer, InvalidSignatureAnswer, StatusAnswer, TicketParams } from './ticket-answers.ts';
import {
  CHECK_IN_CONFLICT_EXAMPLES,
  ENTRY_RULE_REFUSAL_EXAMPLES,
  exitTicket,
  outcome,
  ticket,
} from './ticket-examples.ts';

/** The routes take the request from here, beside the operations it is for. */
export { CheckInBody };

const Replayed = {
  'Idempotent-Replayed': Type.String({
    enum: ['true'],
    description: 'present on a replay: the answer is the one the first attempt with this key got',
  }),
};

export const checkInSchema = {
  operationId: 'checkInTicket',
  summary: 'Check a ticket in (idempotent)',
  description:
    'Always 200 for the outcomes `valid`, `already_used`, `revoked`, `wrong_event` and `expired`; ' +
    '`invalid_signature` is a 400. A retry with the same idempotency key and body gets the first answer again.',
  tags: ['scanner'],
  security: ScannerAuth,
  body: CheckInBody,
  headers: CheckInHeaders,
  response: {
    200: json('The outcome of the scan (only `valid` admits)', CheckInAnswer, {
      headers: Replayed,
      examples: {
        valid: outcome('First successful scan: admit', {
          status: 'valid',
          ticket: { ...ticket, checked_in_at: EXAMPLE.scannedAt, entries: 1 },
        }),
        already_used: outcome('Double scan: the original checked_in_at', {
          status: 'already_used',
          ticket: { ...ticket, checked_in_at: EXAMPLE.firstScanAt, entries: 1 },
        }),
        revoked: outcome('Revoked (refund, fraud…)', {
          status: 'revoked',
          ticket: { ...ticket, checked_in_at: null, entries: 0 },
        }),
        wrong_event: outcome('A ticket of another event', {
          status: 'wrong_event',
          ticket: { tid: EXAMPLE.tid, eid: EXAMPLE.otherEid },
        }),
        expired: outcome('Expired', { status: 'expired', ticket: { ...ticket, checked_in_at: null, entries: 0 } }),
      },
    }),
    403: errorAnswer(403, {
      description:
        'FORBIDDEN: the key is not valid for this event, gate or scanner; or a refusal at the gate, kept in the ' +
        'scan log with the ticket unchanged: `details.reason` `ticket_type_not_admitted` (a declared gate that ' +
        'does not admit the type), or one of the ticket type’s entry rules, judged at `scanned_at` in the ' +
        'event’s time zone: `not_valid_now` (before `valid_from`, outside `valid_days` (without them, outside ' +
        'the event’s days `event_days` when the event has an end) or outside `hours`), ' +
        '`entry_limit_reached` (`max_entries`, `max_entries_per_day`, or a first entry on one day more than ' +
        '`max_days`), `too_soon` (`min_minutes_between_entries`). ' +
        'An entry a scanner admitted offline (`admitted_offline: true`) that the rules refuse now keeps this ' +
        'answer and still counts as an entry, with the holder inside.',
      examples: ENTRY_RULE_REFUSAL_EXAMPLES,
    }),
    400: json(
      'The `invalid_signature` outcome; or INVALID_REQUEST (`details.fields`), PROTOCOL_VERSION_UNSUPPORTED',
      Type.Union([InvalidSignatureAnswer, ErrorEnvelope]),
      {
        headers: Replayed,
        examples: {
          invalid_signature: outcome('The signature does not verify', {
            status: 'invalid_signature',
            ticket: null,
            error: { code: 'INVALID_SIGNATURE', message: 'the ticket signature could not be verified', details: {} },
          }),
          too_old: outcome(
            'A scan older than 48 hours',
            errorExample('INVALID_REQUEST', 'scanned_at is more than 48 hours in the past', {
              fields: [{ field: 'scanned_at', problem: 'more than 48 hours in the past' }],
            }),
          ),
        },
      },
    ),
    404: json('NOT_FOUND: no ticket has this tid (replays of this answer too)', ErrorEnvelope, {
      headers: Replayed,
      examples: { unknown: outcome('An unknown tid', errorExample('NOT_FOUND', 'no ticket has this tid')) },
    }),
    409: errorAnswer(409, {
      description:
        'IDEMPOTENCY_CONFLICT: this idempotency key was used with another body; or CONFLICT with `details.reason` ' +
        '`turned_away_offline`: the scanner turned the holder away offline (`admitted_offline: false`) where the ' +
        'issuer would have checked the ticket in, so the ticket stays unused (replays of this answer too)',
      examples: CHECK_IN_CONFLICT_EXAMPLES,
    }),
    ...errors(401, 413, 415, 429, 500),
  },
};

export const checkOutSchema = {
  operationId: 'checkOutTicket',
  summary: 'Let a ticket holder out (idempotent, as check-in)',
  description:
    'The check-in body and rules; idempotency keys share the event’s key space with check-ins (one key on an ' +
    'entry and an exit is 409 IDEMPOTENCY_CONFLICT). A revoked ticket answers `revoked`, and a holder inside is ' +
    'still counted out. Exits are never refused for the gate or the ticket type.',
  tags: ['scanner'],
  security: ScannerAuth,
  body: CheckInBody,
  headers: CheckInHeaders,
  response: {
    200: json('The outcome of the exit scan', CheckOutAnswer, {
      headers: Replayed,
      examples: {
        checked_out: outcome('The holder went out', {
          status: 'checked_out',
          ticket: { ...exitTicket, checked_in_at: EXAMPLE.firstScanAt, checked_out_at: EXAMPLE.scannedAt },
        }),
        not_inside: outcome('Never came in', {
          status: 'not_inside',
          ticket: { ...exitTicket, checked_in_at: null, checked_out_at: null },
        }),
      },
    }),
    400: json(
      'The `invalid_signature` outcome; or INVALID_REQUEST (`details.fields`)',
      Type.Union([InvalidSignatureAnswer, ErrorEnvelope]),
      { headers: Replayed },
    ),
    404: json('NOT_FOUND: no ticket has this tid', ErrorEnvelope, { headers: Replayed }),
    409: errorAnswer(409, { description: 'IDEMPOTENCY_CONFLICT: this idempotency key was used with another body' }),
    ...errors(401, 403, 413, 415, 429, 500),
  },
};

export const statusSchema = {
  operationId: 'getTicketStatus',
  summary: "Read a ticket's current state",
  description: 'Changes nothing: for pre-checks, admin tools and post-event reconciliation.',
  tags: ['scanner'],
  security: ScannerAuth,
  params: TicketParams,
  response: {
    200: json("The ticket's state", StatusAnswer, {
      examples: {
        checked_in: outcome('A used ticket', {
          ...ticket,
          status: 'checked_in',
          issued_at: EXAMPLE.issuedAt,
          checked_in_at: EXAMPLE.firstScanAt,
          inside: true,
          checked_out_at: null,
          entries: 1,
        }),
      },
    }),
    ...errors(400, 401),
    403: errorAnswer(403, { description: 'FORBIDDEN: the ticket belongs to another event than the API key' }),
    404: errorAnswer(404, { description: 'NOT_FOUND: no ticket has this tid' }),
    ...errors(429, 500),
  },
};
