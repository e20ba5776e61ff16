/** The wallet outbox on SQLite (see ../wallet-push-records.ts). */
import type {
  ClaimedWalletPush,
  WalletChannel,
  WalletPushKind,
  WalletPushRecord,
  WalletPushResult,
  WalletPushStore,
} from '../wallet-push-records.ts';
import { WALLET_PUSHES } from '../lease-tables.ts';
import {
  CLAIMED_PUSHES,
  ENQUEUE_WALLET_PUSHES,
  RECORD_WALLET_PUSH,
  toClaimedPush,
  toWalletPush,
  WALLET_PUSHES_OF,
} from '../wallet-push-rows.ts';
import type { SqliteContext } from './context.ts';
import { anyDue, leaseDue } from './leases.ts';

/** Inside a revocation's or reissue's transaction: one push per channel turned on, due at once. */
export function enqueueWalletPushes(
  c: SqliteContext,
  tid: string,
  eid: string,
  kind: WalletPushKind,
  at: string,
): void {
  c.run(ENQUEUE_WALLET_PUSHES, tid, eid, kind, at, at);
}

/** The wallet outbox on SQLite: one process, so the app's clock decides what is due. */
export class SqliteWalletPushStore implements WalletPushStore {
  constructor(private readonly b: { ctx: SqliteContext }) {}

  setChannel(channel: WalletChannel, on: boolean): Promise<void> {
    const c = this.b.ctx;
    return c.tx(() => {
      if (on) c.run('INSERT INTO wallet_channels (channel) VALUES (?) ON CONFLICT DO NOTHING', channel);
      else c.run('DELETE FROM wallet_channels WHERE channel = ?', channel);
    });
  }

  claim(channel: WalletChannel, now: string, leaseUntil: string, limit: number): Promise<ClaimedWalletPush[]> {
    const c = this.b.ctx;
    const claim = { now, leaseUntil, limit, where: { sql: 'channel = ?', params: [channel] }, returning: 'push_id' };
    if (!anyDue(c, WALLET_PUSHES, claim)) return Promise.resolve([]);
    return c.tx(() => {
      const ids = leaseDue<{ push_id: number }>(c, WALLET_PUSHES, claim).map((row) => row.push_id);
      return c.all<Record<string, unknown>>(CLAIMED_PUSHES, JSON.stringify(ids)).map(toClaimedPush);
    });
  }

  record(results: readonly WalletPushResult[]): Promise<number> {
    const c = this.b.ctx;
    return c.tx(() => {
      let recorded = 0;
      for (const r of results) {
        const state = r.outcome === 'retry' ? 'pending' : r.outcome;
        const finished = r.outcome === 'retry' ? null : r.at;
        recorded += c.run(
          RECORD_WALLET_PUSH,
          state,
          r.next_attempt_at,
          r.status,
          r.error,
          finished,
          r.push_id,
          r.lease,
        );
      }
      return recorded;
    });
  }

  async pushesOf(tid: string): Promise<WalletPushRecord[]> {
    return this.b.ctx.all<Record<string, unknown>>(WALLET_PUSHES_OF, tid).map(toWalletPush);
  }
}
