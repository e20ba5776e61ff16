import { Type } from '@sinclair/typebox';
import { MAX_TICKETS_PER_REQUEST } from '../../domain/tickets.ts';
import { LocalTimeIn, TimeZoneIn } from './calendar.ts';
import { named } from './components.ts';
import {
  ADMIN_ROUTE as admin,
  errorAnswer,
  errors,
  Id,
  InstantIn,
  json,
  media,
  Nullable,
  PAGE_FIELDS,
  PageQuery,
  Strict,
  Text,
} from './common.ts';
import { TICKET_HOLDER_IN, TICKET_HOLDER_OUT } from './ticket-holder.ts';
import { TICKET_GROUP_IN, TICKET_GROUP_OUT } from './ticket-group.ts';
import { DeliverySummary } from './deliveries.ts';
import { NEW_TICKET_RULES_IN, TICKET_RULES_OUT } from './ticket-notes.ts';

export * from './admin-access.ts';
export * from './admin-keys.ts';
export * from './admin-scans.ts';
export * from './arrivals.ts';
export * from './recent-scans.ts';
export * from './gates.ts';

const S = Type.String();
const NS = Nullable(Type.String());
const Time = Type.String({ description: 'ISO 8601 UTC timestamp' });
const NullableTime = Nullable(Type.String(), { description: 'ISO 8601 UTC timestamp, or null' });

export const EventParams = Type.Object({ eid: Id() });

const EventProperties = {
  eid: S,
  name: S,
  event_date: Time,
  ends_at: NullableTime,
  created_at: Time,
  reentry: Type.Boolean({ description: 'a ticket that went out may come in again' }),
  capacity: Nullable(Type.Integer(), { description: 'how many may be inside at once, or null' }),
  timezone: Type.String({ description: "the event's IANA time zone (default UTC)" }),
  day_starts_at: Type.String({ description: 'the local time "HH:MM" each event day starts at (default 00:00)' }),
  auto_exit: Type.Boolean({ description: 'holders still inside are counted out at the start of each event day' }),
};

/** The event calendar's fields, in a new event and in a change of its settings. */
const CalendarFields = {
  timezone: Type.Optional(TimeZoneIn),
  day_starts_at: Type.Optional(
    LocalTimeIn('the local time each event day starts at (default 00:00): a day runs to the same time the next day'),
  ),
  auto_exit: Type.Optional(
    Type.Boolean({ description: 'count holders still inside out at the start of each event day (default false)' }),
  ),
};

export const EventAnswer = named('Event', Type.Object(EventProperties, { description: 'An event' }));

const EventCounters = named(
  'EventCounters',
  Type.Object(
    { issued: Type.Integer(), checked_in: Type.Integer(), revoked: Type.Integer(), conflicts: Type.Integer() },
    { description: "The event's tickets: issued, checked in, revoked, and offline double entries (conflicts)" },
  ),
);

const EventDetail = named(
  'EventDetail',
  Type.Object({ ...EventProperties, counters: EventCounters }, { description: 'An event with its counters' }),
);

const CreateEventRequest = named(
  'CreateEventRequest',
  Strict({ name: Text(200), event_date: InstantIn, ends_at: Type.Optional(Nullable(InstantIn)), ...CalendarFields }),
);

export const createEventSchema = {
  ...admin,
  operationId: 'createEvent',
  summary: 'Create an event',
  body: CreateEventRequest,
  response: { 201: json('The new event', EventAnswer), ...errors(400, 401, 413, 415, 429, 500) },
};

export const listEventsSchema = {
  ...admin,
  operationId: 'listEvents',
  summary: 'List events',
  querystring: PageQuery,
  response: {
    200: json('A page of events', named('EventList', Type.Object({ events: Type.Array(EventAnswer), ...PAGE_FIELDS }))),
    ...errors(400, 401, 429, 500),
  },
};

const noEvent = errorAnswer(404, { description: 'NOT_FOUND: no event has this eid' });

const Capacity = Nullable(
  Type.Integer({ minimum: 1, maximum: 10_000_000, 'x-problem': 'must be a whole number from 1 to 10000000' }),
  { description: 'how many may be inside at once (the console warns near it; nobody is refused for it); null: none' },
);

export const updateEventSchema = {
  ...admin,
  operationId: 'updateEvent',
  summary: "Change an event's settings: re-entry, capacity, time zone, day start, automatic exit",
  description:
    'A field left out stays as it is. A day start that would put a declared ticket type’s `hours` out of order ' +
    '(`from` after `until` in the new day) is refused, naming `day_starts_at`.',
  params: EventParams,
  body: named(
    'EventSettings',
    Strict({
      reentry: Type.Optional(Type.Boolean({ description: 'a ticket that went out may come in again (default false)' })),
      capacity: Type.Optional(Capacity),
      ...CalendarFields,
    }),
  ),
  response: {
    200: json('The event with its settings', EventAnswer),
    ...errors(400, 401),
    404: noEvent,
    ...errors(413, 415, 429, 500),
  },
};

const noTicket = errorAnswer(404, { description: 'NOT_FOUND: no ticket has this tid' });

export const getEventSchema = {
  ...admin,
  operationId: 'getEvent',
  summary: 'One event with its counters',
  params: EventParams,
  response: {
    200: json('The event and its counters', EventDetail),
    ...errors(400, 401),
    404: noEvent,
    ...errors(429, 500),
  },
};

const ExternalId = Nullable(
  Type.String({
    maxLength: 100,
    pattern: '^[^\\u0000-\\u001f\\u007f]*$',
    description:
      "the organizer's own id of the ticket (an order line, a CSV row), unique per event: a ticket whose " +
      'external_id the event holds already is not created again. Trimmed; blank is refused.',
    'x-problem': 'must be text of 1 to 100 characters, without control characters',
  }),
);

const TicketSpec = named(
  'NewTicket',
  Strict({
    holder_name: Text(200),
    ticket_type: Text(100),
    expires_at: Type.Optional(Nullable(InstantIn)),
    external_id: Type.Optional(ExternalId),
    ...NEW_TICKET_RULES_IN,
    ...TICKET_HOLDER_IN,
    ...TICKET_GROUP_IN,
  }),
);

export const AdminTicket = named(
  'Ticket',
  Type.Object(
    {
      tid: S,
      eid: S,
      status: Type.String({ description: 'valid, checked_in, revoked or expired' }),
      holder_name: S,
      ticket_type: S,
      issued_at: Time,
      checked_in_at: NullableTime,
      expires_at: NullableTime,
      revoked_at: NullableTime,
      revoke_reason: NS,
      ticket_token: Type.Optional(
        Type.String({
          description:
            'the signed token (compact JWS) its QR code carries; absent for a viewer, to whom it is not shown ' +
            '(an entry credential)',
        }),
      ),
      external_id: Nullable(Type.String(), { description: "the organizer's own id of the ticket, or null" }),
      ...TICKET_RULES_OUT,
      ...TICKET_HOLDER_OUT,
      ...TICKET_GROUP_OUT,
      delivery: DeliverySummary,
    },
    { description: 'A ticket as the organizer sees it' },
  ),
);

const IssueTicketsRequest = named(
  'IssueTicketsRequest',
  Strict(
    {
      holder_name: Type.Optional(Text(200)),
      ticket_type: Type.Optional(Text(100)),
      expires_at: Type.Optional(Nullable(InstantIn)),
      external_id: Type.Optional(ExternalId),
      ...NEW_TICKET_RULES_IN,
      ...TICKET_HOLDER_IN,
      ...TICKET_GROUP_IN,
      tickets: Type.Optional(Type.Array(TicketSpec, { minItems: 1, maxItems: MAX_TICKETS_PER_REQUEST })),
    },
    'One ticket (holder_name and ticket_type), or {"tickets": [...]} alone',
  ),
);

const SkippedTicket = named(
  'SkippedTicket',
  Type.Object(
    { external_id: S, tid: Type.String({ description: 'the ticket the event already holds for this external_id' }) },
    { description: 'A requested ticket not created again: its external_id was known already' },
  ),
);

const TicketBatch = named(
  'TicketBatch',
  Type.Object({
    tickets: Type.Array(AdminTicket, { description: 'the tickets created, in the order asked' }),
    skipped: Type.Array(SkippedTicket, {
      description: 'the requests whose external_id the event held already, in the order asked (none created)',
    }),
  }),
);

export const issueTicketsSchema = {
  ...admin,
  operationId: 'issueTickets',
  summary: 'Issue one ticket, or up to 10,000 as {"tickets": [...]} in one transaction',
  description:
    'A ticket whose `external_id` the event holds already is not created again: a bulk answer lists it under ' +
    '`skipped` (201 when at least one ticket was created, else 200); the single form answers 200 with the existing ' +
    'ticket. An empty `external_id`, or one repeated within the request, is 400 naming it. Concurrent requests ' +
    'create a ticket once per external_id.',
  params: EventParams,
  body: IssueTicketsRequest,
  response: {
    200: json(
      'Nothing created: the existing ticket of this external_id, or {"tickets": [], "skipped": [...]}',
      Type.Union([AdminTicket, TicketBatch]),
    ),
    201: json(
      'The ticket, or {"tickets": [...], "skipped": [...]} for a bulk request',
      Type.Union([AdminTicket, TicketBatch]),
    ),
    ...errors(400, 401),
    404: noEvent,
    ...errors(413, 415, 429, 500),
  },
};

export const listTicketsSchema = {
  ...admin,
  operationId: 'listTickets',
  summary: "List an event's tickets, or search them with q",
  description:
    'With q: the tickets whose holder name contains q, ignoring case, accents and punctuation (`jose` finds José, ' +
    "`obrien` finds O'Brien), or whose tid starts with it, in tid order.",
  params: EventParams,
  querystring: Type.Composite([
    PageQuery,
    Type.Object({
      q: Type.Optional(Text(200, 0)),
    }),
  ]),
  response: {
    200: json(
      'A page of tickets',
      named('TicketList', Type.Object({ tickets: Type.Array(AdminTicket), ...PAGE_FIELDS })),
    ),
    ...errors(400, 401),
    404: noEvent,
    ...errors(429, 500),
  },
};

export const TidParams = Type.Object({ tid: Text(128) });

export const getTicketSchema = {
  ...admin,
  operationId: 'getTicket',
  summary: 'One ticket with its ticket_token (not for a viewer)',
  params: TidParams,
  response: { 200: json('The ticket', AdminTicket), ...errors(400, 401), 404: noTicket, ...errors(429, 500) },
};

export const revokeTicketSchema = {
  ...admin,
  operationId: 'revokeTicket',
  summary: 'Revoke a ticket (refund, fraud…); idempotent',
  params: TidParams,
  body: named(
    'RevokeTicketRequest',
    Strict({ reason: Type.Optional(Nullable(Text(500, 0))) }, 'Optional: send no body'),
  ),
  response: {
    200: json('The revoked ticket (the first revocation time and reason are kept)', AdminTicket),
    ...errors(400, 401),
    404: noTicket,
    ...errors(413, 415, 429, 500),
  },
};

const ReissueRequest = named(
  'ReissueRequest',
  Strict(
    {
      jti: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 128,
          pattern: '^[\\x21-\\x7e]+$',
          description:
            "the jti of the token this reissue replaces: refused (409, superseded) if it is no longer the ticket's",
          'x-problem': 'must be the jti of a ticket token',
        }),
      ),
    },
    '`{}` (or no body) replaces the current token; `{"jti"}` replaces that token only while it is current',
  ),
);

export const reissueTicketSchema = {
  ...admin,
  operationId: 'reissueTicket',
  summary: 'Give a ticket a new token (new jti, current signing key); the previous token is superseded',
  description:
    'A check-in with a superseded token answers revoked. A revoked or used ticket cannot be reissued (409 CONFLICT). ' +
    'Of concurrent reissues of one token exactly one succeeds; the others, and a reissue naming a jti that is no ' +
    'longer current, are 409 CONFLICT with `details.reason` `superseded`.',
  params: TidParams,
  body: ReissueRequest,
  response: {
    200: json('The ticket with its new ticket_token', AdminTicket),
    ...errors(400, 401),
    404: noTicket,
    409: errorAnswer(409, {
      description:
        'CONFLICT: the ticket is revoked or already used, or its token was reissued meanwhile (`details.reason` `superseded`)',
    }),
    ...errors(413, 415, 429, 500),
  },
};

const qrSchema = (format: 'svg' | 'png') => ({
  ...admin,
  operationId: format === 'svg' ? 'getTicketQrSvg' : 'getTicketQrPng',
  summary: `The ticket's QR code as ${format === 'svg' ? 'an SVG image' : 'a PNG image'} (it carries the ticket_token; not for a viewer)`,
  params: TidParams,
  response: {
    200: media('The QR code', [format === 'svg' ? 'image/svg+xml' : 'image/png']),
    ...errors(400, 401),
    404: noTicket,
    ...errors(429, 500),
  },
});

export const qrSvgSchema = qrSchema('svg');
export const qrPngSchema = qrSchema('png');
