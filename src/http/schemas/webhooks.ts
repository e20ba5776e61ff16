import { Type } from '@sinclair/typebox';
import { WEBHOOK_TYPES } from '../../store/webhook-records.ts';
import { named } from './components.ts';
import {
  ADMIN_ROUTE as admin,
  empty,
  errorAnswer,
  errors,
  Id,
  Instant,
  json,
  NoBody,
  Nullable,
  NullableInstant,
  PAGE_FIELDS,
  PageQuery,
  Strict,
  Text,
} from './common.ts';

const noWebhook = errorAnswer(404, { description: 'NOT_FOUND: no webhook endpoint has this webhook_id' });
const TYPES_TEXT = `${WEBHOOK_TYPES.join(', ')}, or "*" for every type`;

const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'where messages are POSTed: http or https, no user info; not a loopback or private address',
  'x-problem': 'must be an http or https URL of at most 2048 characters',
});
const EventTypes = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  minItems: 1,
  maxItems: 20,
  description: `the message types sent to it: ${TYPES_TEXT}`,
  'x-problem': `must list one or more of ${TYPES_TEXT}`,
});
const Scope = Nullable(Id(), { description: 'the one event whose changes it receives; null or absent: every event' });
const Description = Nullable(Text(500), { description: 'a note for the organizer' });

const webhookFields = {
  webhook_id: Type.String({ description: '`whk_…`' }),
  url: Type.String(),
  event_types: Type.Array(Type.String()),
  eid: Nullable(Type.String()),
  description: Nullable(Type.String()),
  enabled: Type.Boolean(),
  failing_since: Nullable(Type.String(), {
    description: 'the first failed attempt of an unbroken run of failures, or null',
  }),
  disabled_reason: Nullable(Type.String(), {
    description:
      'why it is disabled: `gone` (the receiver answered 410), `failing` (5 days of failures), or by the organizer',
  }),
  created_at: Instant,
};

export const Webhook = named(
  'Webhook',
  Type.Object(webhookFields, { description: 'A webhook endpoint (its secret is shown only on creation and rotation)' }),
);
const CreatedWebhook = named(
  'CreatedWebhook',
  Type.Object(
    {
      ...webhookFields,
      secret: Type.String({ description: '`whsec_` and 32 random bytes in base64: shown this once' }),
    },
    { description: 'The new endpoint with its signing secret' },
  ),
);

const WebhookParams = Type.Object({ webhook_id: Id() });

export const createWebhookSchema = {
  ...admin,
  operationId: 'createWebhook',
  summary: 'Add a webhook endpoint',
  description:
    'Messages follow Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature` headers, a JSON ' +
    'body `{type, timestamp, data}`. Creating an endpoint sends nothing; `POST …/test` sends a `webhook.test` message.',
  body: named(
    'WebhookRequest',
    Strict({
      url: Url,
      event_types: EventTypes,
      eid: Type.Optional(Scope),
      description: Type.Optional(Description),
    }),
  ),
  response: { 201: json('The endpoint and its secret', CreatedWebhook), ...errors(400, 401, 413, 415, 429, 500) },
};

export const listWebhooksSchema = {
  ...admin,
  operationId: 'listWebhooks',
  summary: 'The webhook endpoints, in webhook_id order',
  querystring: PageQuery,
  response: {
    200: json(
      'A page of endpoints',
      named('WebhookList', Type.Object({ webhooks: Type.Array(Webhook), ...PAGE_FIELDS })),
    ),
    ...errors(400, 401, 429, 500),
  },
};

export const getWebhookSchema = {
  ...admin,
  operationId: 'getWebhook',
  summary: 'One webhook endpoint',
  params: WebhookParams,
  response: { 200: json('The endpoint', Webhook), ...errors(400, 401), 404: noWebhook, ...errors(429, 500) },
};

export const updateWebhookSchema = {
  ...admin,
  operationId: 'updateWebhook',
  summary: 'Change a webhook endpoint: url, event_types, eid, description, enabled',
  description:
    'Disabling an endpoint stops new messages at once and fails its pending ones (a redelivery still works); ' +
    'enabling it again clears its failure run.',
  params: WebhookParams,
  body: named(
    'WebhookChange',
    Strict({
      url: Type.Optional(Url),
      event_types: Type.Optional(EventTypes),
      eid: Type.Optional(Scope),
      description: Type.Optional(Description),
      enabled: Type.Optional(Type.Boolean()),
    }),
  ),
  response: {
    200: json('The endpoint as it is now', Webhook),
    ...errors(400, 401),
    404: noWebhook,
    ...errors(413, 415, 429, 500),
  },
};

export const deleteWebhookSchema = {
  ...admin,
  operationId: 'deleteWebhook',
  summary: 'Delete a webhook endpoint, its messages and their attempts',
  params: WebhookParams,
  response: { 204: empty('Deleted'), ...errors(400, 401), 404: noWebhook, ...errors(429, 500) },
};

export const rotateWebhookSecretSchema = {
  ...admin,
  operationId: 'rotateWebhookSecret',
  summary: "Replace an endpoint's secret; for 24 h messages carry both signatures",
  params: WebhookParams,
  body: NoBody,
  response: {
    200: json(
      'The new secret, shown this once',
      named('WebhookSecret', Type.Object({ secret: Type.String({ description: '`whsec_…`' }) })),
    ),
    ...errors(400, 401),
    404: noWebhook,
    ...errors(413, 415, 429, 500),
  },
};

export const testWebhookSchema = {
  ...admin,
  operationId: 'testWebhook',
  summary: 'Send the endpoint a `webhook.test` message (whatever its types)',
  params: WebhookParams,
  body: NoBody,
  response: {
    202: json('Queued', named('QueuedMessage', Type.Object({ message_id: Type.String({ description: '`msg_…`' }) }))),
    ...errors(400, 401),
    404: noWebhook,
    ...errors(413, 415, 429, 500),
  },
};

const Attempt = named(
  'WebhookAttempt',
  Type.Object({
    at: Instant,
    status_code: Nullable(Type.Integer(), { description: "the receiver's status; null when it gave none" }),
    error: Nullable(Type.String(), { description: 'what went wrong, when the attempt failed' }),
    duration_ms: Type.Integer(),
  }),
);

const Delivery = named(
  'WebhookDelivery',
  Type.Object({
    message_id: Type.String({ description: 'the `webhook-id` of every attempt of this message' }),
    type: Type.String(),
    state: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
    created_at: Instant,
    next_attempt_at: NullableInstant,
    attempts: Type.Array(Attempt),
  }),
);

export const listDeliveriesSchema = {
  ...admin,
  operationId: 'listWebhookDeliveries',
  summary: "An endpoint's messages with every attempt, newest first",
  params: WebhookParams,
  querystring: PageQuery,
  response: {
    200: json(
      'A page of messages',
      named('WebhookDeliveryList', Type.Object({ deliveries: Type.Array(Delivery), ...PAGE_FIELDS })),
    ),
    ...errors(400, 401),
    404: noWebhook,
    ...errors(429, 500),
  },
};

export const redeliverSchema = {
  ...admin,
  operationId: 'redeliverWebhookMessage',
  summary: 'Attempt a message again soon, with the same `webhook-id`',
  params: Type.Object({ webhook_id: Id(), message_id: Id() }),
  body: NoBody,
  response: {
    202: empty('A new attempt is due now'),
    ...errors(400, 401),
    404: errorAnswer(404, { description: 'NOT_FOUND: no such endpoint, or no such message of it' }),
    ...errors(413, 415, 429, 500),
  },
};
