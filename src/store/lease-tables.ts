/**
 * The outbox tables as a lease claim sees them (one helper per dialect, `sqlite/leases.ts` and
 * `postgres/leases.ts`, claims from each): a row waits for an attempt while `waiting` holds, is due at
 * `next_attempt_at`, and is held by a claim while `lease_until` is later than now, under the claim's
 * token in `token`. The webhook outbox claims per endpoint, in a shape of its own (outbox-delivery.ts).
 */
export interface LeaseTable {
  table: string;
  /** The key column. */
  key: string;
  /** The column of the claim's token: a result is recorded only while it still holds the claim's. */
  token: string;
  /** What makes a row wait for an attempt. */
  waiting: string;
  /** The order claims take due rows in. */
  order: string;
}

/** The mail outbox (also each ticket's delivery status: see decisions.md, one mechanism, several senders). */
export const DELIVERIES: LeaseTable = {
  table: 'deliveries',
  key: 'tid',
  token: 'lease_token',
  waiting: `status = 'queued'`,
  order: 'next_attempt_at, tid',
};

export const APPLE_PUSHES: LeaseTable = {
  table: 'apple_pushes',
  key: 'push_id',
  token: 'lease_owner',
  waiting: `state = 'pending'`,
  order: 'next_attempt_at, seq',
};

export const WALLET_PUSHES: LeaseTable = {
  table: 'wallet_pushes',
  key: 'push_id',
  token: 'lease_owner',
  waiting: `state = 'pending'`,
  order: 'next_attempt_at, push_id',
};

/** A claim: rows due at `now`, at most `limit`, leased until `leaseUntil`, with `where` (its own params) too. */
export interface LeaseClaim {
  now: string;
  leaseUntil: string;
  limit: number;
  /** A further condition on the rows (`channel = ?`), and its parameters. */
  where?: { sql: string; params: unknown[] };
  /** The columns the claim answers. */
  returning: string;
}
