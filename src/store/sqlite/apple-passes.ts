/** Apple Wallet on SQLite: registrations, pass changes and the push outbox (see ../apple-pass-store.ts). */
import type {
  ApplePassRegistration,
  ApplePassStore,
  ApplePushClaim,
  ApplePushResult,
  ClaimedApplePush,
} from '../apple-pass-store.ts';
import * as q from '../apple-pass-queries.ts';
import { APPLE_PUSHES } from '../lease-tables.ts';
import type { SqliteContext } from './context.ts';
import { claimDue } from './leases.ts';

/** Records one attempt's end under its lease; an unregistered device's registrations go with it. */
function finishOne(c: SqliteContext, r: ApplePushResult): void {
  if (r.outcome === 'sent') c.run(q.FINISH_SENT_SQL, r.at, r.push_id, r.lease_owner);
  else if (r.outcome === 'retry') c.run(q.FINISH_RETRY_SQL, r.error, r.next_attempt_at, r.push_id, r.lease_owner);
  else if (c.run(q.FINISH_FAILED_SQL, r.error, r.at, r.push_id, r.lease_owner) > 0 && r.outcome === 'unregistered') {
    c.run(q.DELETE_REGISTRATIONS_OF_PUSH_SQL, r.push_id);
  }
}

export class SqliteApplePassStore implements ApplePassStore {
  constructor(private readonly b: { ctx: SqliteContext }) {}

  registerApplePassDevice(r: ApplePassRegistration): Promise<'created' | 'updated'> {
    const c = this.b.ctx;
    return c.tx(() => {
      if (c.run(q.INSERT_REGISTRATION_SQL, r.device_id, r.pass_type_id, r.serial, r.push_token, r.at) > 0) {
        return 'created';
      }
      c.run(q.UPDATE_PUSH_TOKEN_SQL, r.push_token, r.device_id, r.pass_type_id, r.serial);
      return 'updated';
    });
  }

  unregisterApplePassDevice(deviceId: string, passTypeId: string, serial: string): Promise<boolean> {
    const c = this.b.ctx;
    return c.tx(() => c.run(q.DELETE_REGISTRATION_SQL, deviceId, passTypeId, serial) > 0);
  }

  async listApplePassSerials(deviceId: string, passTypeId: string, since: string | null) {
    const rows = this.b.ctx.all<{ serial: string; changed_at: string }>(
      q.LIST_SERIALS_SQL,
      deviceId,
      passTypeId,
      since ?? q.BEGINNING,
    );
    const lastUpdated = rows.reduce<string | null>(
      (max, r) => (max === null || r.changed_at > max ? r.changed_at : max),
      null,
    );
    return { serials: rows.map((r) => r.serial), lastUpdated };
  }

  async applePassChangedAt(tid: string): Promise<string | null> {
    return this.b.ctx.one<{ changed_at: string }>(q.PASS_CHANGED_AT_SQL, tid)?.changed_at ?? null;
  }

  claimApplePushes(claim: ApplePushClaim): Promise<ClaimedApplePush[]> {
    return claimDue<ClaimedApplePush>(this.b.ctx, APPLE_PUSHES, {
      now: claim.now,
      leaseUntil: new Date(Date.parse(claim.now) + claim.leaseSeconds * 1000).toISOString(),
      limit: claim.limit,
      returning: q.CLAIMED_PUSH_COLUMNS,
    });
  }

  finishApplePushes(results: ApplePushResult[]): Promise<void> {
    const c = this.b.ctx;
    return c.tx(() => {
      for (const r of results) finishOne(c, r);
    });
  }

  purgeApplePushes(before: string, limit: number): Promise<number> {
    const c = this.b.ctx;
    return c.tx(() =>
      c.run(
        `DELETE FROM apple_pushes WHERE push_id IN (SELECT push_id FROM apple_pushes
          WHERE state <> 'pending' AND ended_at < ? ORDER BY ended_at LIMIT ?)`,
        before,
        limit,
      ),
    );
  }

  async listApplePushes(pushToken: string) {
    return this.b.ctx.all<{ push_id: string; state: string; attempts: number; last_error: string | null }>(
      q.LIST_PUSHES_SQL,
      pushToken,
    );
  }
}
