import { Type } from '@sinclair/typebox';
import { DELIVERY_STATUSES } from '../../store/delivery-records.ts';
import { named } from './components.ts';
import {
  ADMIN_ROUTE as admin,
  errorAnswer,
  errors,
  Id,
  json,
  Nullable,
  NullableInstant,
  PAGE_FIELDS,
  PageQuery,
  Strict,
} from './common.ts';

/** Tickets one request may name (a whole event: `tids: null`). */
export const MAX_TIDS_PER_REQUEST = 10_000;

const EventParams = Type.Object({ eid: Id() });
const noEvent = errorAnswer(404, {
  description: 'NOT_FOUND: no event has this eid, or a tid of `tids` names no ticket of the event (`details.tids`)',
});

const Status = Type.Union(
  DELIVERY_STATUSES.map((status) => Type.Literal(status)),
  { description: '`queued` (waiting or retrying), `sent`, or `failed` (refused for good, or retried too long)' },
);

/** A ticket's delivery in a ticket answer: null when its email was never asked for. */
export const DeliverySummary = named(
  'DeliverySummary',
  Nullable(
    Type.Object({
      status: Status,
      sent_at: NullableInstant,
      last_error: Nullable(Type.String(), {
        description: "the last failed attempt's SMTP reply or error (why a `failed` one failed), or null",
      }),
    }),
    {
      description: "the ticket's email: its status and when it was sent; null when it was never queued",
    },
  ),
);

const Counts = named(
  'DeliveryCounts',
  Type.Object(
    {
      with_email: Type.Integer({ description: 'tickets of the event that have an email and are not revoked' }),
      queued: Type.Integer({ description: 'of those, emails waiting to be sent (or retried)' }),
      sent: Type.Integer({ description: 'of those, emails sent' }),
      failed: Type.Integer({ description: 'of those, emails failed' }),
    },
    {
      description:
        "The event's emails in numbers, whatever `status` and `cursor` ask; with_email − queued − sent is how many " +
        'a send with `tids: null` queues',
    },
  ),
);

const SendRequest = Strict(
  {
    tids: Nullable(Type.Array(Id(), { minItems: 1, maxItems: MAX_TIDS_PER_REQUEST }), {
      description:
        'the tickets to send; null: every ticket of the event that has an email and was not sent yet (with `resend`, sent ones too)',
      'x-problem': `must be null or a list of 1 to ${MAX_TIDS_PER_REQUEST} tids`,
    }),
    resend: Type.Optional(
      Type.Boolean({
        description: 'send again tickets already sent (default false)',
        'x-problem': 'must be true or false',
      }),
    ),
  },
  'Which tickets to send by email',
);

const Delivery = named(
  'Delivery',
  Type.Object(
    {
      tid: Type.String(),
      email: Type.String({ description: 'the address, as the ticket had it when queued' }),
      status: Status,
      attempts: Type.Integer({ description: 'attempts since it was queued' }),
      last_error: Nullable(Type.String(), {
        description: "the last failed attempt's SMTP reply or error, or null",
      }),
      sent_at: NullableInstant,
    },
    { description: "One ticket's email" },
  ),
);

export const sendTicketsSchema = {
  ...admin,
  operationId: 'sendTickets',
  summary: 'Send tickets to their holders by email',
  description:
    "Queues one email per ticket that has an email and is not revoked: To the ticket's email, From MAIL_FROM, the " +
    "event's name in the Subject, the holder's name and holder_url in a text and an HTML part, the ticket PDF " +
    'attached. A ticket already queued is not queued twice; one sent goes again only with `resend`. Sent through a ' +
    'durable outbox, at least once: temporary SMTP failures are retried after the delays of MAIL_RETRY_SCHEDULE_S, ' +
    "a permanent one is recorded as `failed` with the server's reply.",
  params: EventParams,
  body: SendRequest,
  response: {
    202: json(
      'How many emails were queued',
      named(
        'QueuedDeliveries',
        Type.Object({ queued: Type.Integer({ description: 'emails queued by this request' }) }),
      ),
    ),
    ...errors(400, 401),
    404: noEvent,
    409: errorAnswer(409, {
      description: 'CONFLICT: mail is not configured (SMTP_URL unset): `details.reason` `mail_not_configured`',
    }),
    ...errors(413, 415, 429, 500),
  },
};

export const listDeliveriesSchema = {
  ...admin,
  operationId: 'listTicketDeliveries',
  summary: "The event's ticket emails and their status, in tid order",
  params: EventParams,
  querystring: Type.Object({
    ...PageQuery.properties,
    status: Type.Optional(
      Type.Union(
        DELIVERY_STATUSES.map((status) => Type.Literal(status)),
        { description: 'only those of this status', 'x-problem': `must be one of ${DELIVERY_STATUSES.join(', ')}` },
      ),
    ),
  }),
  response: {
    200: json(
      "The event's ticket emails, a page at a time",
      named('DeliveryList', Type.Object({ deliveries: Type.Array(Delivery), counts: Counts, ...PAGE_FIELDS })),
    ),
    ...errors(400, 401),
    404: errorAnswer(404, { description: 'NOT_FOUND: no event has this eid' }),
    ...errors(429, 500),
  },
};
