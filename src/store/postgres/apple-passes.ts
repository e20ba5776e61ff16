/** Apple Wallet on PostgreSQL: registrations, pass changes and the push outbox (see ../apple-pass-store.ts). */
import type pg from 'pg';
import type {
  ApplePassRegistration,
  ApplePassStore,
  ApplePushClaim,
  ApplePushResult,
  ClaimedApplePush,
} from '../apple-pass-store.ts';
import * as q from '../apple-pass-queries.ts';
import { APPLE_PUSHES } from '../lease-tables.ts';
import { claimSql } from './leases.ts';
import { all, numbered, one, type Tx } from './queries.ts';

const n = numbered;

/** Records one attempt's end under its lease; an unregistered device's registrations go with it. */
async function finishOne(db: pg.PoolClient, r: ApplePushResult): Promise<void> {
  if (r.outcome === 'sent') await db.query(n(q.FINISH_SENT_SQL), [r.at, r.push_id, r.lease_owner]);
  else if (r.outcome === 'retry') {
    await db.query(n(q.FINISH_RETRY_SQL), [r.error, r.next_attempt_at, r.push_id, r.lease_owner]);
  } else {
    const failed = await db.query(n(q.FINISH_FAILED_SQL), [r.error, r.at, r.push_id, r.lease_owner]);
    if ((failed.rowCount ?? 0) > 0 && r.outcome === 'unregistered') {
      await db.query(n(q.DELETE_REGISTRATIONS_OF_PUSH_SQL), [r.push_id]);
    }
  }
}

export class PostgresApplePassStore implements ApplePassStore {
  constructor(private readonly b: { pool: pg.Pool; tx: Tx }) {}

  async registerApplePassDevice(r: ApplePassRegistration): Promise<'created' | 'updated'> {
    return this.b.tx(async (db) => {
      const inserted = await db.query(n(q.INSERT_REGISTRATION_SQL), [
        r.device_id,
        r.pass_type_id,
        r.serial,
        r.push_token,
        r.at,
      ]);
      if ((inserted.rowCount ?? 0) > 0) return 'created';
      await db.query(n(q.UPDATE_PUSH_TOKEN_SQL), [r.push_token, r.device_id, r.pass_type_id, r.serial]);
      return 'updated';
    });
  }

  async unregisterApplePassDevice(deviceId: string, passTypeId: string, serial: string): Promise<boolean> {
    const deleted = await this.b.pool.query(n(q.DELETE_REGISTRATION_SQL), [deviceId, passTypeId, serial]);
    return (deleted.rowCount ?? 0) > 0;
  }

  async listApplePassSerials(deviceId: string, passTypeId: string, since: string | null) {
    const rows = await all<{ serial: string; changed_at: string }>(this.b.pool, n(q.LIST_SERIALS_SQL), [
      deviceId,
      passTypeId,
      since ?? q.BEGINNING,
    ]);
    const lastUpdated = rows.reduce<string | null>(
      (max, r) => (max === null || r.changed_at > max ? r.changed_at : max),
      null,
    );
    return { serials: rows.map((r) => r.serial), lastUpdated };
  }

  async applePassChangedAt(tid: string): Promise<string | null> {
    return (await one<{ changed_at: string }>(this.b.pool, n(q.PASS_CHANGED_AT_SQL), [tid]))?.changed_at ?? null;
  }

  /** Rows taken with SKIP LOCKED: instances share the due pushes without waiting on each other. */
  async claimApplePushes(claim: ApplePushClaim): Promise<ClaimedApplePush[]> {
    const leaseUntil = new Date(Date.parse(claim.now) + claim.leaseSeconds * 1000).toISOString();
    return all<ClaimedApplePush>(
      this.b.pool,
      claimSql(APPLE_PUSHES, { now: '$2', leaseUntil: '$1', limit: '$3', returning: q.CLAIMED_PUSH_COLUMNS }),
      [leaseUntil, claim.now, claim.limit],
    );
  }

  async finishApplePushes(results: ApplePushResult[]): Promise<void> {
    if (results.length === 0) return;
    await this.b.tx(async (db) => {
      for (const r of results) await finishOne(db, r);
    });
  }

  async purgeApplePushes(before: string, limit: number): Promise<number> {
    const deleted = await this.b.pool.query(
      `DELETE FROM apple_pushes WHERE push_id IN (SELECT push_id FROM apple_pushes
        WHERE state <> 'pending' AND ended_at < $1 ORDER BY ended_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [before, limit],
    );
    return deleted.rowCount ?? 0;
  }

  async listApplePushes(pushToken: string) {
    return all<{ push_id: string; state: string; attempts: number; last_error: string | null }>(
      this.b.pool,
      n(q.LIST_PUSHES_SQL),
      [pushToken],
    );
  }
}
