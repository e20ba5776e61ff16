import assert from 'node:assert/strict';
import type { EventRecord, Store, TicketRecord } from '../../src/store/store.ts';
import type { ClaimedWalletPush, WalletPushResult } from '../../src/store/wallet-push-records.ts';

/** What the main conformance suite lends to this part of it. */
export interface WalletPushSuiteContext {
  test: (title: string, fn: () => Promise<void>) => void;
  store: () => Store;
  seed: (ticketCount?: number) => Promise<{ event: EventRecord; tickets: TicketRecord[] }>;
  at: (minutes: number) => string;
}

/** The wallet outbox: written by revocations and reissues, claimed under leases, results recorded under them. */
export function walletPushConformance(c: WalletPushSuiteContext): void {
  const { test, store, seed, at } = c;
  const claimOf = async (tids: string[], now: string, leaseUntil: string): Promise<ClaimedWalletPush[]> =>
    (await store().walletPushes.claim('google', now, leaseUntil, 1000)).filter((p) => tids.includes(p.tid));
  const result = (p: ClaimedWalletPush, overrides: Partial<WalletPushResult>): WalletPushResult => ({
    push_id: p.push_id,
    lease: p.lease,
    outcome: 'done',
    at: at(1),
    next_attempt_at: null,
    status: 200,
    error: null,
    ...overrides,
  });
  /** Runs `fn` with Google Wallet's pushes on, turning them off afterwards for the rest of the suite. */
  const withGoogle = (fn: () => Promise<void>) => async () => {
    await store().walletPushes.setChannel('google', true);
    try {
      await fn();
    } finally {
      await store().walletPushes.setChannel('google', false);
    }
  };

  test('wallet pushes: none while no channel is on', async () => {
    const { tickets } = await seed(2);
    await store().tickets.revokeTicket(tickets[0]!.tid, at(0), null);
    const t = tickets[1]!;
    await store().tickets.reissueTicket(t.tid, t.ticket_token, `${t.ticket_token}.2`, null, at(0));
    assert.deepEqual(await store().walletPushes.pushesOf(tickets[0]!.tid), []);
    assert.deepEqual(await store().walletPushes.pushesOf(t.tid), []);
  });

  test(
    'wallet pushes: a revocation and a reissue each write one in their own transaction; a refused one none',
    withGoogle(async () => {
      await store().walletPushes.setChannel('google', true); // turning it on twice is harmless
      const { tickets } = await seed(2);
      const [revoked, reissued] = tickets as [TicketRecord, TicketRecord];
      await store().tickets.revokeTicket(revoked.tid, at(1), 'lost');
      await store().tickets.revokeTicket(revoked.tid, at(2), 'again'); // no change, no push
      await store().tickets.reissueTicket(reissued.tid, reissued.ticket_token, 'token-2', null, at(3));
      const refused = await store().tickets.reissueTicket(reissued.tid, 'stale-token', 'token-3', null, at(4));
      assert.equal(refused.kind, 'refused');
      const [onRevoke, ...moreRevoke] = await store().walletPushes.pushesOf(revoked.tid);
      assert.deepEqual(moreRevoke, []);
      assert.deepEqual(
        { ...onRevoke, push_id: 0 },
        {
          push_id: 0,
          channel: 'google',
          tid: revoked.tid,
          eid: revoked.eid,
          kind: 'revoked',
          state: 'pending',
          attempts: 0,
          next_attempt_at: at(1),
          created_at: at(1),
          finished_at: null,
          last_status: null,
          last_error: null,
        },
      );
      const onReissue = await store().walletPushes.pushesOf(reissued.tid);
      assert.deepEqual(
        onReissue.map((p) => [p.kind, p.state, p.next_attempt_at]),
        [['reissued', 'pending', at(3)]],
      );
    }),
  );

  test(
    'wallet pushes: a claim carries the ticket as it stands, under a lease no other claim shares',
    withGoogle(async () => {
      const { tickets } = await seed(3);
      const tids = tickets.map((t) => t.tid);
      for (const t of tickets) await store().tickets.reissueTicket(t.tid, t.ticket_token, `${t.tid}-new`, null, at(1));
      await store().tickets.revokeTicket(tids[2]!, at(2), null);
      assert.deepEqual(await claimOf(tids, at(0), at(10)), [], 'not due before its time');
      const [first, second] = await Promise.all([claimOf(tids, at(5), at(10)), claimOf(tids, at(5), at(10))]);
      const claimed = [...first!, ...second!];
      assert.equal(claimed.length, 4, 'each push taken by exactly one of two concurrent claims');
      assert.equal(new Set(claimed.map((p) => p.push_id)).size, 4);
      assert.equal(new Set(claimed.map((p) => p.lease)).size, 4, 'a lease token per push');
      for (const p of claimed) assert.equal(p.ticket_token, `${p.tid}-new`);
      assert.deepEqual(
        claimed.filter((p) => p.revoked_at !== null).map((p) => [p.tid, p.revoked_at]),
        [
          [tids[2], at(2)],
          [tids[2], at(2)],
        ],
      );
      assert.deepEqual(await claimOf(tids, at(6), at(10)), [], 'nothing while the leases live');
      const again = await claimOf(tids, at(11), at(20));
      assert.equal(again.length, 4, 'lapsed leases are claimed again');
      const old = claimed[0]!;
      assert.equal(await store().walletPushes.record([result(old, {})]), 0, 'a lapsed claim records nothing');
      const fresh = again.find((p) => p.push_id === old.push_id)!;
      assert.equal(await store().walletPushes.record([result(fresh, { at: at(12) })]), 1);
      assert.equal(await store().walletPushes.record([result(fresh, { at: at(13) })]), 0, 'recorded once');
      for (const p of again.filter((x) => x.push_id !== old.push_id)) {
        await store().walletPushes.record([result(p, { outcome: 'failed', status: 400, error: 'bad' })]);
      }
    }),
  );

  test(
    'wallet pushes: a retry is due again at its time with the attempt counted; done and failed end it',
    withGoogle(async () => {
      const { tickets } = await seed(1);
      const tid = tickets[0]!.tid;
      await store().tickets.revokeTicket(tid, at(1), null);
      const [push] = await claimOf([tid], at(1), at(5));
      await store().walletPushes.record([
        result(push!, { outcome: 'retry', next_attempt_at: at(30), status: 503, error: '503 busy' }),
      ]);
      const [waiting] = await store().walletPushes.pushesOf(tid);
      assert.deepEqual(
        [waiting!.state, waiting!.attempts, waiting!.next_attempt_at, waiting!.last_status, waiting!.last_error],
        ['pending', 1, at(30), 503, '503 busy'],
      );
      assert.deepEqual(await claimOf([tid], at(29), at(40)), [], 'not before the retry is due');
      const [retried] = await claimOf([tid], at(30), at(40));
      assert.equal(retried!.attempts, 1);
      await store().walletPushes.record([result(retried!, { at: at(31), status: 404 })]);
      const [ended] = await store().walletPushes.pushesOf(tid);
      assert.deepEqual(
        [ended!.state, ended!.attempts, ended!.finished_at, ended!.last_status],
        ['done', 2, at(31), 404],
      );
      assert.deepEqual(await claimOf([tid], at(100), at(110)), [], 'an ended push is never claimed');
    }),
  );
}
