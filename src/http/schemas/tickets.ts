import { Type } from '@sinclair/typebox';
import { CHECK_IN_OUTCOMES, TICKET_STATES } from '@ticket-issuer/protocol';
import { named, StringEnum } from './components.ts';
import {
  ErrorEnvelope,
  errorAnswer,
  errorExample,
  errors,
  Id,
  InstantIn,
  json,
  Nullable,
  ScannerAuth,
  Text,
} from './common.ts';
import { EXAMPLE } from './examples.ts';

/** Unknown fields are ignored (not refused) on the scanner API: newer scanners may send more. */
export const CheckInBody = named(
  'CheckInRequest',
  Type.Object(
    {
      tid: Id(),
      eid: Id(),
      scanned_at: InstantIn,
      scanner_id: Id(),
      gate_id: Type.Optional(Id()),
      idempotency_key: Type.Optional(
        Type.String({
          maxLength: 64,
          pattern: '^[\\x21-\\x7e]*$',
          description: 'UUID v4 per scan attempt; or the Idempotency-Key header',
          'x-problem': 'must be a UUID',
        }),
      ),
      ticket_token: Type.Optional(
        Type.String({ minLength: 1, maxLength: 4096, description: 'the scanned QR string (compact JWS)' }),
      ),
      signature_valid: Type.Optional(Type.Boolean({ description: "the scanner's own verdict on the signature" })),
      admitted_offline: Type.Optional(
        Type.Boolean({
          description:
            "the scanner's own offline verdict: true, it already let the holder in; false, it turned the holder " +
            'away, and the upload never checks the ticket in',
        }),
      ),
      manual: Type.Optional(
        Type.Boolean({
          description:
            'true: gate staff chose the ticket from a search by the holder’s name (no `ticket_token`); kept in the ' +
            'scan log as `manual`',
        }),
      ),
    },
    {
      description: 'One scan of a ticket. `scanned_at` may be up to 48 hours in the past (queued offline scans).',
      examples: [
        {
          tid: EXAMPLE.tid,
          eid: EXAMPLE.eid,
          scanned_at: EXAMPLE.scannedAt,
          scanner_id: EXAMPLE.scannerId,
          gate_id: 'north',
          idempotency_key: EXAMPLE.idempotencyKey,
        },
      ],
    },
  ),
);

export const CheckInHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ maxLength: 64, description: 'UUID v4 per scan attempt, instead of the body field' }),
  ),
});

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

const InvalidSignatureAnswer = named(
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

const exitTicket = {
  tid: EXAMPLE.tid,
  eid: EXAMPLE.eid,
  holder_name: 'Ada Lovelace',
  ticket_type: 'GA',
};
const ticket = { ...exitTicket, attention: false, checkin_texts: [] };
const outcome = (summary: string, value: unknown) => ({ summary, value });

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
      examples: {
        not_valid_now: outcome(
          'A Saturday ticket on Friday',
          errorExample('FORBIDDEN', 'this ticket is not valid at this time', {
            reason: 'not_valid_now',
            event_day: '2026-07-03',
            valid_from: null,
            valid_days: ['2026-07-04'],
            event_days: { first: '2026-07-03', last: '2026-07-05' },
            hours: null,
            holder_name: 'Ada Lovelace',
            ticket_type: 'Saturday',
            entries: 0,
            attention: false,
            checkin_texts: [],
          }),
        ),
        entry_limit_reached: outcome(
          'A two-day ticket on a third day',
          errorExample('FORBIDDEN', 'this ticket has reached its entry limit', {
            reason: 'entry_limit_reached',
            event_day: '2026-07-05',
            entries: 3,
            entries_today: 0,
            max_entries: null,
            max_entries_per_day: null,
            max_days: 2,
            days_used: 2,
            holder_name: 'Ada Lovelace',
            ticket_type: 'Any two days',
            attention: false,
            checkin_texts: [],
          }),
        ),
        too_soon: outcome(
          'A second entry ten minutes after the first, 30 minutes apart',
          errorExample('FORBIDDEN', 'too soon after this ticket’s last entry', {
            reason: 'too_soon',
            last_entry_at: '2026-07-03T18:20:00.000Z',
            min_minutes_between_entries: 30,
            next_entry_at: '2026-07-03T18:50:00.000Z',
            holder_name: 'Ada Lovelace',
            ticket_type: 'Wristband',
            entries: 1,
            attention: false,
            checkin_texts: [],
          }),
        ),
      },
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
      examples: {
        conflict: outcome(
          'Same key, different body',
          errorExample('IDEMPOTENCY_CONFLICT', 'this idempotency key was already used with a different request body', {
            idempotency_key: EXAMPLE.idempotencyKey,
          }),
        ),
        turned_away: outcome(
          'An offline rejection uploaded for a ticket that is still valid',
          errorExample(
            'CONFLICT',
            'this scanner turned the holder away offline, so the scan does not check the ticket in',
            { reason: 'turned_away_offline' },
          ),
        ),
      },
    }),
    ...errors(401, 413, 415, 429, 500),
  },
};

const CheckOutAnswer = named(
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
