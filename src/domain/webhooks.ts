/**
 * Webhook endpoints as the organizer manages them: create (the secret shown once), change, rotate the
 * secret (both signatures for 24 h), send a test message, read the deliveries, redeliver. Secrets are
 * sealed with the key-encryption key, bound to their endpoint's id.
 */
import type { Config } from '../config.ts';
import type { Store } from '../store/store.ts';
import {
  type DeliveryRecord,
  WEBHOOK_TYPES,
  type WebhookChange,
  type WebhookRecord,
} from '../store/webhook-records.ts';
import { privateHostProblem, urlFormProblem } from '../webhooks/receiver-url.ts';
import { newWebhookSecret } from '../webhooks/signing.ts';
import type { Clock } from './clock.ts';
import { IssuerError, invalidRequest } from './errors.ts';
import { newWebhookId } from './ids.ts';
import { seal, unseal } from './key-encryption.ts';
import { toStored, toWire } from './time.ts';
import { noteAudit } from '../store/audit-context.ts';

/** How long messages carry the previous secret's signature too, after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

const label = (webhookId: string) => `webhook:${webhookId}`;

export function sealWebhookSecret(kek: Buffer, webhookId: string, secret: string): string {
  return seal(kek, Buffer.from(secret, 'utf8'), label(webhookId));
}

export function unsealWebhookSecret(kek: Buffer, webhookId: string, sealed: string): string {
  return unseal(kek, sealed, label(webhookId)).toString('utf8');
}

/** An endpoint as the admin API shows it: never its secret. */
export function webhookView(w: WebhookRecord) {
  return {
    webhook_id: w.webhook_id,
    url: w.url,
    event_types: w.event_types,
    eid: w.eid,
    description: w.description,
    enabled: w.enabled,
    failing_since: toWire(w.failing_since),
    disabled_reason: w.disabled_reason,
    created_at: toWire(w.created_at),
  };
}

/** A message and its attempts, as the deliveries list shows them. */
export function deliveryView(d: DeliveryRecord) {
  return {
    message_id: d.message_id,
    type: d.type,
    state: d.state,
    created_at: toWire(d.created_at),
    next_attempt_at: d.state === 'pending' ? toWire(d.next_attempt_at) : null,
    attempts: d.attempts.map((a) => ({ ...a, at: toWire(a.at) })),
  };
}

/** The subscribed types, checked and normalized (each once; `*` alone stands for every type). */
export function eventTypes(types: readonly string[]): string[] {
  const unknown = types.filter((t) => t !== '*' && !(WEBHOOK_TYPES as readonly string[]).includes(t));
  if (types.length === 0 || unknown.length > 0) {
    const problem =
      types.length === 0
        ? 'must name at least one type, or "*"'
        : `unknown type ${unknown.map((t) => JSON.stringify(t)).join(', ')}; one of ${WEBHOOK_TYPES.join(', ')} or "*"`;
    throw invalidRequest(`event_types ${problem}`, [{ field: 'event_types', problem }]);
  }
  return types.includes('*') ? ['*'] : [...new Set(types)];
}

/** The receiver URL, checked: its form, then (unless allowed) that it reaches no private network. */
export async function receiverUrl(url: string, allowPrivate: boolean): Promise<string> {
  const problem = urlFormProblem(url) ?? (allowPrivate ? null : await privateHostProblem(url));
  if (problem !== null) throw invalidRequest(`url ${problem}`, [{ field: 'url', problem }]);
  return url;
}

async function eventScope(store: Store, eid: string | null | undefined): Promise<string | null> {
  if (eid === undefined || eid === null) return null;
  if ((await store.events.getEvent(eid)) === null) {
    throw invalidRequest('eid names no event', [{ field: 'eid', problem: 'no event has this eid' }]);
  }
  return eid;
}

export interface WebhookInput {
  url: string;
  event_types: string[];
  eid?: string | null;
  description?: string | null;
}

/** Creates an enabled endpoint; the answer carries its secret, shown this once. */
export async function createWebhook(
  store: Store,
  clock: Clock,
  kek: Buffer,
  settings: Config['webhooks'],
  input: WebhookInput,
): Promise<{ webhook: WebhookRecord; secret: string }> {
  const types = eventTypes(input.event_types);
  const url = await receiverUrl(input.url, settings.allowPrivate);
  const eid = await eventScope(store, input.eid);
  const webhookId = newWebhookId();
  const secret = newWebhookSecret();
  const webhook: WebhookRecord = {
    webhook_id: webhookId,
    url,
    event_types: types,
    eid,
    description: input.description ?? null,
    enabled: true,
    secret_enc: sealWebhookSecret(kek, webhookId, secret),
    previous_secret_enc: null,
    previous_secret_until: null,
    created_at: toStored(clock.now()),
    failing_since: null,
    disabled_reason: null,
  };
  noteAudit({ target: webhook.webhook_id });
  await store.webhooks.createWebhook(webhook);
  return { webhook, secret };
}

export async function requireWebhook(store: Store, webhookId: string): Promise<WebhookRecord> {
  const webhook = await store.webhooks.getWebhook(webhookId);
  if (webhook === null) throw new IssuerError('NOT_FOUND', 'no webhook endpoint has this webhook_id');
  return webhook;
}

/** Changes any of url, event_types, eid, description, enabled. */
export async function updateWebhook(
  store: Store,
  settings: Config['webhooks'],
  webhookId: string,
  input: Partial<WebhookInput> & { enabled?: boolean },
): Promise<WebhookRecord> {
  const change: WebhookChange = {};
  if (input.url !== undefined) change.url = await receiverUrl(input.url, settings.allowPrivate);
  if (input.event_types !== undefined) change.event_types = eventTypes(input.event_types);
  if (input.eid !== undefined) change.eid = await eventScope(store, input.eid);
  if (input.description !== undefined) change.description = input.description;
  if (input.enabled !== undefined) {
    change.enabled = input.enabled;
    if (!input.enabled) change.disabled_reason = 'by the organizer';
  }
  const updated = await store.webhooks.updateWebhook(webhookId, change);
  if (updated === null) throw new IssuerError('NOT_FOUND', 'no webhook endpoint has this webhook_id');
  return updated;
}

/** A new secret; for 24 h messages carry a signature by the previous one as well. */
export async function rotateWebhookSecret(store: Store, clock: Clock, kek: Buffer, webhookId: string) {
  const webhook = await requireWebhook(store, webhookId);
  const secret = newWebhookSecret();
  await store.webhooks.updateWebhook(webhookId, {
    secret_enc: sealWebhookSecret(kek, webhookId, secret),
    previous_secret_enc: webhook.secret_enc,
    previous_secret_until: toStored(new Date(clock.now().getTime() + ROTATION_OVERLAP_MS)),
  });
  return { secret };
}

/** Queues the endpoint's `webhook.test` message, whatever it subscribes to. */
export async function sendTestMessage(store: Store, clock: Clock, webhookId: string): Promise<{ message_id: string }> {
  await requireWebhook(store, webhookId);
  const message_id = await store.webhooks.enqueueWebhookMessage(webhookId, {
    type: 'webhook.test',
    eid: null,
    data: { webhook_id: webhookId },
    position: null,
    occurred_at: toStored(clock.now()),
  });
  return { message_id };
}

/** Makes a message pending again, with the same `webhook-id`. */
export async function redeliverMessage(store: Store, clock: Clock, webhookId: string, messageId: string) {
  await requireWebhook(store, webhookId);
  if (!(await store.webhooks.redeliverWebhookMessage(webhookId, messageId, toStored(clock.now())))) {
    throw new IssuerError('NOT_FOUND', 'this webhook endpoint has no message with this message_id');
  }
}
