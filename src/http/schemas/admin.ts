import { Type } from '@sinclair/typebox';
import { MAX_TICKETS_PER_REQUEST } from '../../domain/tickets.ts';
import { BearerAuth, errors, Id, InstantIn, Nullable, PageQuery, Text } from './common.ts';

const admin = { tags: ['admin'], security: BearerAuth };
const S = Type.String();
const NS = Nullable(Type.String());

export const EventParams = Type.Object({ eid: Id() });

export const EventAnswer = Type.Object({
  eid: S,
  name: S,
  event_date: S,
  ends_at: NS,
  created_at: S,
  issued: Type.Optional(Type.Integer()),
  checked_in: Type.Optional(Type.Integer()),
  revoked: Type.Optional(Type.Integer()),
  conflicts: Type.Optional(Type.Integer()),
  counters: Type.Optional(
    Type.Object({
      issued: Type.Integer(),
      checked_in: Type.Integer(),
      revoked: Type.Integer(),
      conflicts: Type.Integer(),
    }),
  ),
});

export const createEventSchema = {
  ...admin,
  summary: 'Create an event',
  body: Type.Object({ name: Text(200), event_date: InstantIn, ends_at: Type.Optional(Nullable(InstantIn)) }),
  response: { 201: EventAnswer, ...errors(400, 401, 413, 415, 429, 500) },
};

export const listEventsSchema = {
  ...admin,
  summary: 'List events',
  querystring: PageQuery,
  response: { 200: Type.Object({ events: Type.Array(EventAnswer), next_cursor: NS }), ...errors(400, 401, 429, 500) },
};

export const getEventSchema = {
  ...admin,
  summary: 'One event with its counters',
  params: EventParams,
  response: { 200: EventAnswer, ...errors(400, 401, 404, 429, 500) },
};

const TicketSpec = Type.Object({
  holder_name: Text(200),
  ticket_type: Text(100),
  expires_at: Type.Optional(Nullable(InstantIn)),
});

export const AdminTicket = Type.Object({
  tid: S,
  eid: S,
  status: S,
  holder_name: S,
  ticket_type: S,
  issued_at: S,
  checked_in_at: NS,
  expires_at: NS,
  revoked_at: NS,
  revoke_reason: NS,
  ticket_token: S,
});

export const issueTicketsSchema = {
  ...admin,
  summary: 'Issue one ticket, or up to 10,000 as {"tickets": [...]} in one transaction',
  params: EventParams,
  body: Type.Object({
    holder_name: Type.Optional(Text(200)),
    ticket_type: Type.Optional(Text(100)),
    expires_at: Type.Optional(Nullable(InstantIn)),
    tickets: Type.Optional(Type.Array(TicketSpec, { minItems: 1, maxItems: MAX_TICKETS_PER_REQUEST })),
  }),
  response: {
    201: Type.Union([AdminTicket, Type.Object({ tickets: Type.Array(AdminTicket) })]),
    ...errors(400, 401, 404, 413, 415, 429, 500),
  },
};

export const listTicketsSchema = {
  ...admin,
  summary: "List an event's tickets",
  params: EventParams,
  querystring: PageQuery,
  response: {
    200: Type.Object({ tickets: Type.Array(AdminTicket), next_cursor: NS }),
    ...errors(400, 401, 404, 429, 500),
  },
};

export const TidParams = Type.Object({ tid: Text(128) });

export const getTicketSchema = {
  ...admin,
  summary: 'One ticket with its ticket_token',
  params: TidParams,
  response: { 200: AdminTicket, ...errors(400, 401, 404, 429, 500) },
};

export const revokeTicketSchema = {
  ...admin,
  summary: 'Revoke a ticket (refund, fraud…); idempotent',
  params: TidParams,
  body: Type.Object({ reason: Type.Optional(Nullable(Text(500, 0))) }),
  response: { 200: AdminTicket, ...errors(400, 401, 404, 413, 415, 429, 500) },
};

export const reissueTicketSchema = {
  ...admin,
  summary: 'Give a ticket a new token (new jti, current signing key); the previous token is superseded',
  description:
    'A check-in with a superseded token answers revoked. A revoked or used ticket cannot be reissued (409 CONFLICT).',
  params: TidParams,
  body: Type.Object({}),
  response: { 200: AdminTicket, ...errors(400, 401, 404, 409, 413, 415, 429, 500) },
};

export const qrSchema = {
  ...admin,
  summary: "The ticket's QR code (it carries the ticket_token)",
  params: TidParams,
  response: errors(400, 401, 404, 429, 500),
};

export const EnrollmentTokenAnswer = Type.Object({
  token_id: S,
  eid: S,
  gate_id: NS,
  expires_at: S,
  key_expires_at: S,
  created_at: S,
  used_at: NS,
  revoked_at: NS,
});

export const createEnrollmentTokenSchema = {
  ...admin,
  summary: 'Create a single-use enrolment token and its setup QR (the token is shown only here)',
  params: EventParams,
  body: Type.Object({
    gate_id: Type.Optional(Nullable(Id())),
    expires_at: Type.Optional(Nullable(InstantIn)),
    key_expires_at: Type.Optional(Nullable(InstantIn)),
  }),
  response: {
    201: Type.Composite([
      EnrollmentTokenAnswer,
      Type.Object({ token: S, setup_uri: S, setup_qr_svg: S, setup_qr_png: S }),
    ]),
    ...errors(400, 401, 404, 413, 415, 429, 500),
  },
};

export const revokeEnrollmentTokenSchema = {
  ...admin,
  summary: 'Revoke an unused enrolment token',
  params: Type.Object({ token_id: Id() }),
  response: { 200: EnrollmentTokenAnswer, ...errors(400, 401, 404, 429, 500) },
};

export const ScannerRecord = Type.Object({
  scanner_id: S,
  name: NS,
  platform: NS,
  api_key_id: S,
  gate_id: NS,
  enrolled_at: S,
  expires_at: S,
  last_seen_at: NS,
  revoked_at: NS,
});

export const listScannersSchema = {
  ...admin,
  summary: "The event's scanners, one record per API key",
  params: EventParams,
  response: { 200: Type.Object({ scanners: Type.Array(ScannerRecord) }), ...errors(400, 401, 404, 429, 500) },
};

export const revokeApiKeySchema = {
  ...admin,
  summary: "Revoke a scanner's API key",
  params: Type.Object({ api_key_id: Id() }),
  response: { 200: ScannerRecord, ...errors(400, 401, 404, 429, 500) },
};

export const ScanAnswer = Type.Object({
  scan_id: Type.Integer(),
  tid: S,
  eid: S,
  outcome: S,
  reason: NS,
  replay: Type.Boolean(),
  admitted_offline: Type.Boolean(),
  api_key_id: S,
  scanner_id: S,
  gate_id: NS,
  idempotency_key: S,
  scanned_at: S,
  received_at: S,
});

export const listScansSchema = {
  ...admin,
  summary: "The event's scan log: every check-in attempt and its outcome",
  params: EventParams,
  querystring: PageQuery,
  response: {
    200: Type.Object({ scans: Type.Array(ScanAnswer), next_cursor: NS }),
    ...errors(400, 401, 404, 429, 500),
  },
};

export const SigningKeyAnswer = Type.Object({
  kty: S,
  crv: S,
  x: S,
  kid: S,
  alg: S,
  use: S,
  status: Type.Union([Type.Literal('active'), Type.Literal('retired'), Type.Literal('removed')]),
  created_at: S,
  retired_at: NS,
  removed_at: NS,
});

export const listSigningKeysSchema = {
  ...admin,
  summary: 'The signing keys (public parts only)',
  response: { 200: Type.Object({ keys: Type.Array(SigningKeyAnswer) }), ...errors(401, 429, 500) },
};

export const rotateSigningKeySchema = {
  ...admin,
  summary: 'Make a new active signing key; the previous one keeps verifying until removed',
  response: { 201: SigningKeyAnswer, ...errors(401, 429, 500) },
};

export const removeSigningKeySchema = {
  ...admin,
  summary: 'Remove a retired signing key: tickets it signed stop verifying',
  params: Type.Object({ kid: Id() }),
  response: { 200: SigningKeyAnswer, ...errors(400, 401, 404, 429, 500) },
};

const ConflictScan = Type.Object({ scanner_id: S, gate_id: NS, scanned_at: S, received_at: S });

export const listConflictsSchema = {
  ...admin,
  summary: 'Offline double entries: tickets let in by a scanner that could not know they were used',
  description:
    "A ticket is listed when one of its already_used scans was admitted offline, or was scanned before the ticket's valid check-in reached the issuer.",
  params: EventParams,
  querystring: PageQuery,
  response: {
    200: Type.Object({
      conflicts: Type.Array(
        Type.Object({
          tid: S,
          holder_name: S,
          first: ConflictScan,
          duplicates: Type.Array(Type.Composite([ConflictScan, Type.Object({ admitted_offline: Type.Boolean() })])),
        }),
      ),
      next_cursor: NS,
      has_more: Type.Boolean(),
    }),
    ...errors(400, 401, 404, 429, 500),
  },
};
