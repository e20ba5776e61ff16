/**
 * What the stores keep for webhooks: the endpoints, the outbox of messages (written in the
 * transaction of the change each reports) and every delivery attempt. Both backends share these
 * shapes and the row readers below.
 */
import type { Row } from './rows.ts';

/** The types of message, as endpoints subscribe to them (`*`: every type). */
export const WEBHOOK_TYPES = [
  'ticket.checked_in',
  'ticket.checked_out',
  'ticket.check_in_annulled',
  'ticket.revoked',
  'ticket.reissued',
  'checkin.conflict',
  'scanner.enrolled',
  'scanner.revoked',
  'webhook.test',
] as const;
export type WebhookType = (typeof WEBHOOK_TYPES)[number];

export interface WebhookRecord {
  webhook_id: string;
  url: string;
  /** The subscribed types, or `['*']`. */
  event_types: string[];
  /** The one event whose changes it receives, or null for every event. */
  eid: string | null;
  description: string | null;
  enabled: boolean;
  /** The signing secret (`whsec_…`), encrypted with the key-encryption key. */
  secret_enc: string;
  /** During a rotation: the previous secret, encrypted, and until when messages carry its signature too. */
  previous_secret_enc: string | null;
  previous_secret_until: string | null;
  created_at: string;
  /** The first failed attempt of an unbroken run of failures, or null. */
  failing_since: string | null;
  /** Why the issuer disabled it (`gone`: the receiver answered 410; `failing`: 5 days of failures). */
  disabled_reason: string | null;
}

/** A change of an endpoint (PATCH, rotation, or the worker disabling it). */
export type WebhookChange = Partial<
  Pick<
    WebhookRecord,
    | 'url'
    | 'event_types'
    | 'eid'
    | 'description'
    | 'enabled'
    | 'secret_enc'
    | 'previous_secret_enc'
    | 'previous_secret_until'
    | 'disabled_reason'
  >
>;

/** A message for the outbox: fanned out to every endpoint subscribed to its type and event. */
export interface OutboxMessage {
  type: WebhookType;
  /** The event it concerns (null: none, e.g. a test message). */
  eid: string | null;
  /** The message's `data`, without `position`. */
  data: Record<string, unknown>;
  /** The change's position in the event's feed, added to `data` when set. */
  position: number | null;
  /** When the issuer committed the change: the message's `timestamp`. */
  occurred_at: string;
}

/** A message claimed for an attempt, with what the attempt needs. */
export interface ClaimedMessage {
  message_id: string;
  webhook_id: string;
  type: string;
  data: string;
  position: number | null;
  occurred_at: string;
  attempt_count: number;
  /** Delays of the retry schedule used so far (an attempt answered with a Retry-After uses none). */
  schedule_step: number;
  /** This claim's lease: the attempt's result is recorded only while the message is still under it. */
  lease_token: string;
}

/** One delivery attempt, as the log shows it. */
export interface WebhookAttempt {
  at: string;
  /** The receiver's status (a redirect's included), or null when it gave none. */
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

/** The end of one attempt: its record, and what becomes of the message and the endpoint. */
export interface AttemptResult {
  message_id: string;
  webhook_id: string;
  /** The claim's lease token: a result whose lease was taken over by a newer claim is dropped. */
  lease_token: string;
  attempt: WebhookAttempt;
  /** When the attempt ended: a retry's delay counts from here (SQLite; PostgreSQL counts from its own now). */
  ended_at: string;
  /**
   * Delivered; to be tried again after `delay_s` (`step`: it used a delay of the schedule, not the
   * receiver's Retry-After); or failed for good.
   */
  next: { state: 'delivered' } | { state: 'pending'; delay_s: number; step: boolean } | { state: 'failed' };
  /** Disable the endpoint: the receiver answered 410 (`gone`), or it has failed since before `failing_before`. */
  disable: 'gone' | null;
  /** An endpoint failing since at or before this instant is disabled (`failing`). */
  failing_before: string;
}

/** A message with its attempts, as the deliveries list shows it. */
export interface DeliveryRecord {
  seq: number;
  message_id: string;
  type: string;
  state: 'pending' | 'delivered' | 'failed';
  created_at: string;
  next_attempt_at: string | null;
  attempts: WebhookAttempt[];
}

/** How a claim is made: due messages without a live lease, at most `perEndpoint` of each endpoint. */
export interface ClaimRequest {
  /** Now, by the worker's clock: SQLite's leases and due times are read by it (PostgreSQL reads its own). */
  now: string;
  /** How long each lease lasts, in seconds. */
  leaseSeconds: number;
  limit: number;
  perEndpoint: number;
  /** Endpoints with fewer free slots than `perEndpoint` in this worker, and how many (0: none). */
  limits: { webhook_id: string; free: number }[];
}

/** One bounded step of the outbox's upkeep (see Store.upkeepWebhookOutbox). */
export interface UpkeepRequest {
  /** Now, by the worker's clock (SQLite; PostgreSQL reads its own). */
  now: string;
  /** Delivered and failed messages that ended longer ago than this are deleted, with their attempts. */
  retentionSeconds: number;
  /** At most this many messages per part of the step. */
  batch: number;
}

/** What a step of upkeep did: messages failed (their endpoint is disabled), purged (deleted endpoint), expired. */
export interface UpkeepDone {
  failed: number;
  purged: number;
  expired: number;
}

export function toWebhook(row: Row): WebhookRecord {
  return {
    webhook_id: row.webhook_id as string,
    url: row.url as string,
    event_types: JSON.parse(row.event_types as string) as string[],
    eid: (row.eid as string | null) ?? null,
    description: (row.description as string | null) ?? null,
    enabled: row.enabled === true || row.enabled === 1,
    secret_enc: row.secret_enc as string,
    previous_secret_enc: (row.previous_secret_enc as string | null) ?? null,
    previous_secret_until: (row.previous_secret_until as string | null) ?? null,
    created_at: row.created_at as string,
    failing_since: (row.failing_since as string | null) ?? null,
    disabled_reason: (row.disabled_reason as string | null) ?? null,
  };
}

export function toClaimed(row: Row): ClaimedMessage {
  return {
    message_id: row.message_id as string,
    webhook_id: row.webhook_id as string,
    type: row.type as string,
    data: row.data as string,
    position: row.position === null || row.position === undefined ? null : Number(row.position),
    occurred_at: row.occurred_at as string,
    attempt_count: Number(row.attempt_count),
    schedule_step: Number(row.schedule_step),
    lease_token: row.lease_owner as string,
  };
}

/** The subscription rows of an enabled endpoint: one per type, scoped to its event or to all ('' ). */
export function subscriptionRows(webhook: Pick<WebhookRecord, 'webhook_id' | 'event_types' | 'eid' | 'enabled'>) {
  if (!webhook.enabled) return [];
  return webhook.event_types.map((type) => ({ type, eid_key: webhook.eid ?? '', webhook_id: webhook.webhook_id }));
}

/** Groups attempt rows under their messages (rows ordered by message, then n). */
export function deliveriesOf(messages: Row[], attempts: Row[]): DeliveryRecord[] {
  const byMessage = new Map<string, WebhookAttempt[]>();
  for (const row of attempts) {
    const list = byMessage.get(row.message_id as string) ?? [];
    list.push({
      at: row.at as string,
      status_code: row.status_code === null ? null : Number(row.status_code),
      error: (row.error as string | null) ?? null,
      duration_ms: Number(row.duration_ms),
    });
    byMessage.set(row.message_id as string, list);
  }
  return messages.map((row) => ({
    seq: Number(row.seq),
    message_id: row.message_id as string,
    type: row.type as string,
    state: row.state as DeliveryRecord['state'],
    created_at: row.occurred_at as string,
    next_attempt_at: (row.next_attempt_at as string | null) ?? null,
    attempts: byMessage.get(row.message_id as string) ?? [],
  }));
}

/**
 * What a batch of attempt results does to each endpoint's failure run, in the order the attempts
 * ended: `failingSince` null when its last attempt delivered; else the first failure of the run that
 * the batch ends with, `restarted` when a delivery in the batch broke the earlier run.
 */
export function failureRuns(results: AttemptResult[]) {
  const runs = new Map<
    string,
    { failingSince: string | null; restarted: boolean; gone: boolean; failingBefore: string }
  >();
  const ordered = [...results].sort((a, b) => (a.attempt.at < b.attempt.at ? -1 : a.attempt.at > b.attempt.at ? 1 : 0));
  for (const r of ordered) {
    const run = runs.get(r.webhook_id) ?? { failingSince: null, restarted: false, gone: false, failingBefore: '' };
    if (r.next.state === 'delivered') {
      run.failingSince = null;
      run.restarted = true;
    } else {
      run.failingSince ??= r.attempt.at;
      run.gone ||= r.disable === 'gone';
    }
    run.failingBefore = r.failing_before;
    runs.set(r.webhook_id, run);
  }
  return runs;
}

/** SQLSTATEs that end a transaction which can simply be run again: a deadlock, a serialization failure. */
const RETRIABLE = new Set(['40P01', '40001']);

/** Whether the database ended the transaction in a deadlock or a serialization failure (run it again). */
export function isRetriable(error: unknown): boolean {
  return RETRIABLE.has(String((error as { code?: unknown } | null)?.code ?? ''));
}
