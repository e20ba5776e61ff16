/** The wallet outbox on PostgreSQL (see ../wallet-push-records.ts): claims skip rows another instance holds. */
import type pg from 'pg';
import type {
  ClaimedWalletPush,
  WalletChannel,
  WalletPushKind,
  WalletPushRecord,
  WalletPushResult,
  WalletPushStore,
} from '../wallet-push-records.ts';
import {
  ENQUEUE_WALLET_PUSHES,
  RECORD_WALLET_PUSH,
  toClaimedPush,
  toWalletPush,
  WALLET_PUSHES_OF,
} from '../wallet-push-rows.ts';
import { WALLET_PUSHES } from '../lease-tables.ts';
import { claimSql } from './leases.ts';
import { all, type Db, numbered, type Tx } from './queries.ts';

const ENQUEUE = numbered(ENQUEUE_WALLET_PUSHES);
const RECORD = numbered(RECORD_WALLET_PUSH);
const PUSHES_OF = numbered(WALLET_PUSHES_OF);

/**
 * Due pushes of a channel, locked with SKIP LOCKED so that concurrent claims on several instances take
 * different ones, each under a fresh lease token; with the ticket as it stands.
 */
const CLAIM = `
  WITH taken AS (${claimSql(WALLET_PUSHES, { now: '$2', leaseUntil: '$3', limit: '$4', where: 'channel = $1', returning: '*' })})
  SELECT taken.*, t.ticket_token, t.revoked_at FROM taken JOIN tickets t ON t.tid = taken.tid
   ORDER BY taken.next_attempt_at, taken.push_id`;

/** Inside a revocation's or reissue's transaction: one push per channel turned on, due at once. */
export async function enqueueWalletPushes(db: Db, tid: string, eid: string, kind: WalletPushKind, at: string) {
  await db.query(ENQUEUE, [tid, eid, kind, at, at]);
}

export class PostgresWalletPushStore implements WalletPushStore {
  constructor(private readonly b: { pool: pg.Pool; tx: Tx }) {}

  async setChannel(channel: WalletChannel, on: boolean): Promise<void> {
    await this.b.pool.query(
      on
        ? 'INSERT INTO wallet_channels (channel) VALUES ($1) ON CONFLICT DO NOTHING'
        : 'DELETE FROM wallet_channels WHERE channel = $1',
      [channel],
    );
  }

  async claim(channel: WalletChannel, now: string, leaseUntil: string, limit: number): Promise<ClaimedWalletPush[]> {
    const rows = await all<Record<string, unknown>>(this.b.pool, CLAIM, [channel, now, leaseUntil, limit]);
    return rows.map(toClaimedPush);
  }

  record(results: readonly WalletPushResult[]): Promise<number> {
    return this.b.tx(async (db) => {
      let recorded = 0;
      for (const r of results) {
        const state = r.outcome === 'retry' ? 'pending' : r.outcome;
        const finished = r.outcome === 'retry' ? null : r.at;
        const done = await db.query(RECORD, [
          state,
          r.next_attempt_at,
          r.status,
          r.error,
          finished,
          r.push_id,
          r.lease,
        ]);
        recorded += done.rowCount ?? 0;
      }
      return recorded;
    });
  }

  async pushesOf(tid: string): Promise<WalletPushRecord[]> {
    return (await all<Record<string, unknown>>(this.b.pool, PUSHES_OF, [tid])).map(toWalletPush);
  }
}
