import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decide, withoutTypes } from '../../src/domain/decide.ts';
import { newTicket } from './conformance.ts';
import { seededSqlite } from './seeded-store.ts';

/**
 * The mail outbox's writes on SQLite while check-ins flow: a claim and a batch of ends are units of the
 * check-ins' group commit, so they add no commit and no fsync of the WAL of their own.
 */
describe('mail outbox on SQLite beside the group commit', () => {
  it('a claim and the ends of its attempts share the commit and the fsync of the check-ins beside them', async () => {
    const seeded = await seededSqlite(20, {}, (eid) =>
      Array.from({ length: 3 }, (_, i) => newTicket(eid, { email: `h${i}@example.org` })),
    );
    const { store, event, tickets: scanned, attempt } = seeded;
    try {
      const now = new Date().toISOString();
      assert.equal(
        (await store.deliveries.queueDeliveries({ eid: event.eid, tids: null, resend: false, now })).queued,
        3,
      );
      const checkIns = (tickets: typeof scanned) =>
        tickets.map((ticket) =>
          store.checkIns.checkIn(attempt(ticket, 'gate-a', now), (stored, gate, entries) =>
            decide(stored, event.eid, now, null, null, { gate, entries }, withoutTypes(false)),
          ),
        );

      let syncs = store.walSyncs!;
      const [claimed] = await Promise.all([
        store.deliveries.claimDeliveries({ now, leaseSeconds: 60, limit: 10 }),
        ...checkIns(scanned.slice(0, 10)),
      ]);
      assert.equal(claimed.length, 3);
      assert.equal(store.walSyncs! - syncs, 1, 'the claim and ten check-ins: one commit, one fsync');

      syncs = store.walSyncs!;
      const ended_at = new Date().toISOString();
      const results = claimed.map((c) => ({ tid: c.tid, lease_token: c.lease_token, ended_at }));
      await Promise.all([
        store.deliveries.finishDeliveries([
          { ...results[0]!, outcome: { status: 'sent' } },
          { ...results[1]!, outcome: { status: 'queued', retry_after_s: 60, error: '421 busy' } },
          // A claim no longer held records nothing.
          { ...results[2]!, lease_token: 'not-the-claim', outcome: { status: 'sent' } },
        ]),
        ...checkIns(scanned.slice(10)),
      ]);
      assert.equal(store.walSyncs! - syncs, 1, 'the ends and ten check-ins: one commit, one fsync');
      const rows = new Map(
        (await store.deliveries.listDeliveries(event.eid, null, 10, null)).items.map((d) => [d.tid, d]),
      );
      assert.equal(rows.get(claimed[0]!.tid)!.status, 'sent');
      assert.equal(rows.get(claimed[1]!.tid)!.status, 'queued');
      assert.equal(rows.get(claimed[1]!.tid)!.last_error, '421 busy');
      assert.equal(rows.get(claimed[2]!.tid)!.attempts, 0, 'no end recorded without its claim');
      const counts = await store.deliveries.countDeliveries(event.eid);
      assert.deepEqual(counts, { with_email: 3, queued: 2, sent: 1, failed: 0 });
    } finally {
      await seeded.close();
    }
  });
});
