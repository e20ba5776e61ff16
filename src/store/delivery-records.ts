/** The mail outbox's records: one delivery per ticket, its attempts and their ends. */
import type { Row } from './rows.ts';

export const DELIVERY_STATUSES = ['queued', 'sent', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** A ticket's email as the outbox keeps it. Instants in the stored form. */
export interface DeliveryRecord {
  tid: string;
  eid: string;
  /** The address it goes (or went) to: the ticket's email when it was queued. */
  email: string;
  status: DeliveryStatus;
  /** Attempts since it was last queued. */
  attempts: number;
  /** The last failed attempt's reply or error (no secrets), or null. */
  last_error: string | null;
  queued_at: string;
  sent_at: string | null;
  /** When it is attempted next (queued only), or null. */
  next_attempt_at: string | null;
}

/** Queues tickets' emails: `tids` null for every ticket of the event; `resend`: sent ones too. */
export interface QueueDeliveries {
  eid: string;
  tids: string[] | null;
  resend: boolean;
  now: string;
}

/** What queueing did: how many emails were queued, or the asked tids the event does not hold (nothing queued). */
export type QueueAnswer = { queued: number; unknown: [] } | { queued: 0; unknown: string[] };

/** Takes due deliveries under a lease of `leaseSeconds`, at most `limit`. */
export interface ClaimDeliveries {
  now: string;
  leaseSeconds: number;
  limit: number;
}

/** A delivery taken by a worker: the lease token records its end. */
export interface ClaimedDelivery {
  tid: string;
  eid: string;
  email: string;
  attempts: number;
  lease_token: string;
}

/** The end of one attempt: sent, due again after `retry_after_s`, or failed; recorded only under its claim. */
export interface DeliveryResult {
  tid: string;
  lease_token: string;
  /** When the attempt ended (the retry counts from it on SQLite; PostgreSQL counts from its own now). */
  ended_at: string;
  outcome:
    | { status: 'sent' }
    | { status: 'queued'; retry_after_s: number; error: string }
    | { status: 'failed'; error: string };
}

/** A ticket's delivery as a ticket answer shows it. */
export interface DeliverySummary {
  status: DeliveryStatus;
  sent_at: string | null;
  last_error: string | null;
}

/**
 * An event's emails in numbers, over its tickets that have an email and are not revoked (those a send
 * can reach): how many, and how many of them are queued, sent and failed (the rest were never queued).
 */
export interface DeliveryCounts {
  with_email: number;
  queued: number;
  sent: number;
  failed: number;
}

/**
 * The event's numbers as kept (table `delivery_counts`, written by triggers on tickets and deliveries:
 * see the migrations), one row by key (`?`/`$1`: the eid); no row: none yet.
 */
export const countsQuery = (param: string) =>
  `SELECT with_email, queued, sent, failed FROM delivery_counts WHERE eid = ${param}`;

/** The same numbers counted from the tickets and their deliveries: what the kept ones must always equal. */
export const countedQuery = (param: string) => `
  SELECT count(*) AS with_email,
         coalesce(sum(CASE WHEN d.status = 'queued' THEN 1 ELSE 0 END), 0) AS queued,
         coalesce(sum(CASE WHEN d.status = 'sent' THEN 1 ELSE 0 END), 0) AS sent,
         coalesce(sum(CASE WHEN d.status = 'failed' THEN 1 ELSE 0 END), 0) AS failed
    FROM tickets t LEFT JOIN deliveries d ON d.tid = t.tid
   WHERE t.eid = ${param} AND t.email IS NOT NULL AND t.revoked_at IS NULL`;

export const toDeliveryCounts = (row: Row | null): DeliveryCounts => ({
  with_email: Number(row?.with_email ?? 0),
  queued: Number(row?.queued ?? 0),
  sent: Number(row?.sent ?? 0),
  failed: Number(row?.failed ?? 0),
});

export const toDelivery = (row: Row): DeliveryRecord => ({
  tid: row.tid as string,
  eid: row.eid as string,
  email: row.email as string,
  status: row.status as DeliveryStatus,
  attempts: Number(row.attempts),
  last_error: (row.last_error as string | null) ?? null,
  queued_at: row.queued_at as string,
  sent_at: (row.sent_at as string | null) ?? null,
  next_attempt_at: (row.next_attempt_at as string | null) ?? null,
});

export const toClaimedDelivery = (row: Row): ClaimedDelivery => ({
  tid: row.tid as string,
  eid: row.eid as string,
  email: row.email as string,
  attempts: Number(row.attempts),
  lease_token: row.lease_token as string,
});
