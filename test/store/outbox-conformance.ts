import assert from 'node:assert/strict';
import { describe } from 'node:test';
import type { CheckInAttempt, CheckInVerdict, EventRecord, Store, TicketRecord } from '../../src/store/store.ts';
import type { AttemptResult, ClaimedMessage, UpkeepDone, WebhookRecord } from '../../src/store/webhook-records.ts';

/** What the main conformance suite lends to this part of it. */
export interface OutboxSuiteContext {
  test: (title: string, fn: () => Promise<void>) => void;
  store: () => Store;
  seed: (ticketCount?: number) => Promise<{ event: EventRecord; tickets: TicketRecord[] }>;
  newAttempt: (eid: string, tid: string, overrides?: Partial<CheckInAttempt>) => CheckInAttempt;
  gateDecider: (checkInAt: string) => (ticket: TicketRecord | null) => CheckInVerdict;
  at: (minutes: number) => string;
}

let serial = 0;
function endpoint(overrides: Partial<WebhookRecord> = {}): WebhookRecord {
  serial += 1;
  return {
    webhook_id: `whk_conformance${Date.now()}${serial}`,
    url: 'https://receiver.example/hook',
    event_types: ['*'],
    eid: null,
    description: null,
    enabled: true,
    secret_enc: 'encrypted',
    previous_secret_enc: null,
    previous_secret_until: null,
    created_at: '2026-06-01T12:00:00.000Z',
    failing_since: null,
    disabled_reason: null,
    ...overrides,
  };
}

const MONTH_S = 30 * 24 * 3600;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Real time: PostgreSQL times leases and retries by its own clock, so these tests use the real one. */
const now = () => new Date().toISOString();
const ms = (instant: string | null) => Date.parse(instant ?? 'none');

/** The webhook endpoints and the outbox: part of the one conformance suite. */
export function outboxConformance(c: OutboxSuiteContext): void {
  const { test, store, seed, newAttempt, gateDecider, at } = c;
  const deliveries = async (webhookId: string) =>
    (await store().webhooks.listWebhookDeliveries(webhookId, 100, null)).items;
  const byId = async (webhookId: string) => new Map((await deliveries(webhookId)).map((d) => [d.message_id, d]));
  const claimAll = (leaseSeconds = 60) =>
    store().webhooks.claimWebhookMessages({ now: now(), leaseSeconds, limit: 1000, perEndpoint: 1000, limits: [] });
  const claimOf = async (w: WebhookRecord, leaseSeconds = 60) =>
    (await claimAll(leaseSeconds)).filter((m) => m.webhook_id === w.webhook_id);
  const result = (
    m: ClaimedMessage,
    next: AttemptResult['next'],
    status: number | null,
    overrides: Partial<AttemptResult> = {},
  ): AttemptResult => ({
    message_id: m.message_id,
    webhook_id: m.webhook_id,
    lease_token: m.lease_token,
    attempt: { at: now(), status_code: status, error: status === null ? 'connection refused' : null, duration_ms: 3 },
    ended_at: now(),
    next,
    disable: status === 410 ? 'gone' : null,
    failing_before: at(-7200),
    ...overrides,
  });
  /** Upkeep steps until one finds nothing to do; every step's parts stay within the batch. */
  const upkeepUntilIdle = async (batch: number, retentionSeconds = MONTH_S) => {
    const steps: UpkeepDone[] = [];
    for (;;) {
      const done = await store().webhooks.upkeepWebhookOutbox({ now: now(), retentionSeconds, batch });
      assert.ok(Math.max(done.failed, done.purged, done.expired) <= batch, 'a step stays within its batch');
      steps.push(done);
      if (done.failed + done.purged + done.expired === 0) return steps;
      assert.ok(steps.length < 10_000, 'upkeep ends');
    }
  };
  const checkInAll = async (eid: string, tickets: TicketRecord[]) => {
    for (const t of tickets) await store().checkIns.checkIn(newAttempt(eid, t.tid), gateDecider(at(5)));
  };

  describe('webhook outbox', () => {
    test('a check-in writes one message per subscribed endpoint, in its transaction; a replay none', async () => {
      const { event, tickets } = await seed(2);
      const other = await seed(1);
      const all = endpoint();
      const mine = endpoint({ eid: event.eid, event_types: ['ticket.checked_in'] });
      const elsewhere = endpoint({ eid: other.event.eid });
      const revocations = endpoint({ event_types: ['ticket.revoked'] });
      const off = endpoint({ enabled: false });
      for (const w of [all, mine, elsewhere, revocations, off]) await store().webhooks.createWebhook(w);

      const attempt = newAttempt(event.eid, tickets[0]!.tid, { gate_id: 'north', admitted_offline: true });
      await store().checkIns.checkIn(attempt, gateDecider(at(5)));
      await store().checkIns.checkIn(attempt, gateDecider(at(5)));
      const [message, ...more] = await deliveries(mine.webhook_id);
      assert.equal(more.length, 0, 'one message, none for the replay');
      assert.equal(message!.type, 'ticket.checked_in');
      assert.equal(message!.state, 'pending');
      assert.match(message!.message_id, /^msg_[0-9a-f]{32}$/);
      assert.equal((await deliveries(all.webhook_id)).length, 1);
      assert.equal((await deliveries(elsewhere.webhook_id)).length, 0, 'another event');
      assert.equal((await deliveries(revocations.webhook_id)).length, 0, 'another type');
      assert.equal((await deliveries(off.webhook_id)).length, 0, 'a disabled endpoint');

      const [claimed] = await claimOf(mine);
      assert.deepEqual(JSON.parse(claimed!.data), {
        eid: event.eid,
        tid: tickets[0]!.tid,
        holder_name: tickets[0]!.holder_name,
        ticket_type: tickets[0]!.ticket_type,
        checked_in_at: at(5).replace('.000Z', 'Z'),
        scanner_id: attempt.scanner_id,
        gate_id: 'north',
        admitted_offline: true,
      });
      assert.equal(claimed!.position, 1, 'the change’s position in the feed');
      assert.equal(claimed!.occurred_at, attempt.received_at);
      assert.deepEqual([claimed!.attempt_count, claimed!.schedule_step], [0, 0]);

      // A decision that throws stores nothing, and no message either.
      const failing = newAttempt(event.eid, tickets[1]!.tid);
      await assert.rejects(
        store().checkIns.checkIn(failing, () => {
          throw new Error('decision failed');
        }),
      );
      assert.equal((await deliveries(mine.webhook_id)).length, 1);
    });

    test('revocation, reissue, enrolment and key revocation write their messages', async () => {
      const { event, tickets } = await seed(2);
      const all = endpoint({ eid: event.eid });
      await store().webhooks.createWebhook(all);
      await store().tickets.revokeTicket(tickets[0]!.tid, at(5), 'refund');
      await store().tickets.revokeTicket(tickets[0]!.tid, at(6), 'again');
      const types = (await deliveries(all.webhook_id)).map((d) => d.type);
      assert.deepEqual(types, ['ticket.revoked'], 'a second revocation changes nothing');
      const [revoked] = await claimOf(all);
      assert.deepEqual(JSON.parse(revoked!.data), {
        eid: event.eid,
        tid: tickets[0]!.tid,
        revoked_at: at(5).replace('.000Z', 'Z'),
        reason: 'refund',
      });
    });

    test('claims never hand one message to two workers; a lapsed lease frees it', async () => {
      const { event, tickets } = await seed(20);
      const w = endpoint({ eid: event.eid });
      await store().webhooks.createWebhook(w);
      await checkInAll(event.eid, tickets);
      const claims = await Promise.all(
        Array.from({ length: 4 }, () =>
          store().webhooks.claimWebhookMessages({
            now: now(),
            leaseSeconds: 1,
            limit: 1000,
            perEndpoint: 6,
            limits: [],
          }),
        ),
      );
      const rest = await claimAll(1);
      const ids = [...claims.flat(), ...rest].filter((m) => m.webhook_id === w.webhook_id).map((m) => m.message_id);
      assert.equal(new Set(ids).size, ids.length, 'no message claimed twice');
      assert.equal(ids.length, 20, 'each claimed once');
      assert.ok(
        claims.every((claim) => claim.filter((m) => m.webhook_id === w.webhook_id).length <= 6),
        'at most perEndpoint of one endpoint in a claim',
      );
      assert.deepEqual(await claimOf(w), [], 'all leased');
      await sleep(1100);
      assert.equal((await claimOf(w)).length, 20, 'free again once the leases lapsed');
    });

    test('each claim leases under a token of its own: a result under a lapsed, re-claimed lease is dropped', async () => {
      const { event, tickets } = await seed(1);
      const w = endpoint({ eid: event.eid });
      await store().webhooks.createWebhook(w);
      await checkInAll(event.eid, tickets);
      const [first] = await claimOf(w, 0.3);
      await sleep(400);
      const [second] = await claimOf(w);
      assert.equal(second!.message_id, first!.message_id, 'the lapsed lease let a new claim take it');
      assert.notEqual(second!.lease_token, first!.lease_token);
      // The first attempt's result arrives late (a long outage of the store): the newer claim's stands.
      await store().webhooks.finishWebhookAttempts([result(first!, { state: 'delivered' }, 200)]);
      assert.deepEqual(await claimOf(w), [], 'still under the newer claim, not free for a third attempt');
      const stale = (await byId(w.webhook_id)).get(first!.message_id)!;
      assert.deepEqual([stale.state, stale.attempts.length], ['pending', 0]);
      await store().webhooks.finishWebhookAttempts([
        result(second!, { state: 'pending', delay_s: 60, step: true }, 500),
      ]);
      const recorded = (await byId(w.webhook_id)).get(first!.message_id)!;
      assert.deepEqual([recorded.state, recorded.attempts.map((a) => a.status_code)], ['pending', [500]]);
    });

    test('attempts: delivered, retried after its delay from the end, failing since, disabled on 410', async () => {
      const { event, tickets } = await seed(3);
      const w = endpoint({ eid: event.eid });
      await store().webhooks.createWebhook(w);
      await checkInAll(event.eid, tickets);
      const [a, b, third] = await claimOf(w);
      const before = Date.now();
      await store().webhooks.finishWebhookAttempts([
        result(a!, { state: 'delivered' }, 204),
        result(b!, { state: 'pending', delay_s: 120, step: true }, null),
      ]);
      assert.notEqual((await store().webhooks.getWebhook(w.webhook_id))!.failing_since, null);
      const messages = await byId(w.webhook_id);
      assert.equal(messages.get(a!.message_id)!.state, 'delivered');
      assert.deepEqual(
        messages.get(a!.message_id)!.attempts.map((x) => [x.status_code, x.error, x.duration_ms]),
        [[204, null, 3]],
      );
      const retried = messages.get(b!.message_id)!;
      assert.equal(retried.state, 'pending');
      const due = ms(retried.next_attempt_at) - before;
      assert.ok(due >= 119_000 && due <= 122_000, `due ${due} ms after the attempt ended`);
      assert.deepEqual(await claimOf(w), [], 'not due yet; the third is still leased');

      // A 410 disables the endpoint at once.
      await store().webhooks.finishWebhookAttempts([
        result(third!, { state: 'failed' }, 410, {
          attempt: { at: now(), status_code: 410, error: null, duration_ms: 1 },
        }),
      ]);
      const disabled = (await store().webhooks.getWebhook(w.webhook_id))!;
      assert.deepEqual([disabled.enabled, disabled.disabled_reason], [false, 'gone']);
      // A disabled endpoint gets no new messages; the upkeep fails its pending one; a redelivery makes it pending.
      await store().tickets.revokeTicket(tickets[0]!.tid, at(80), null);
      assert.equal((await deliveries(w.webhook_id)).length, 3);
      await upkeepUntilIdle(1000);
      assert.equal((await byId(w.webhook_id)).get(b!.message_id)!.state, 'failed', 'not tried again');
      assert.equal(await store().webhooks.redeliverWebhookMessage(w.webhook_id, b!.message_id, now()), true);
      assert.equal(await store().webhooks.redeliverWebhookMessage(w.webhook_id, 'msg_none', now()), false);
      assert.equal((await byId(w.webhook_id)).get(b!.message_id)!.state, 'pending');
      await upkeepUntilIdle(1000);
      assert.equal((await byId(w.webhook_id)).get(b!.message_id)!.state, 'pending', 'a redelivery is not failed');
      const again = await claimOf(w);
      assert.deepEqual(
        again.map((m) => m.message_id),
        [b!.message_id],
        'a disabled endpoint’s claim takes its redelivery, nothing else',
      );
      await store().webhooks.finishWebhookAttempts([
        result(again[0]!, { state: 'pending', delay_s: 5, step: true }, 500),
      ]);
      assert.equal((await byId(w.webhook_id)).get(b!.message_id)!.state, 'failed', 'its endpoint is still disabled');
    });

    test('a 410 disables the endpoint whatever else answered in the same batch', async () => {
      const { event, tickets } = await seed(2);
      const w = endpoint({ eid: event.eid });
      await store().webhooks.createWebhook(w);
      await checkInAll(event.eid, tickets);
      const [gone, fine] = await claimOf(w);
      const t = Date.now();
      const stamp = (offset: number) => ({
        at: new Date(t + offset).toISOString(),
        status_code: offset === 0 ? 410 : 200,
        error: null,
        duration_ms: 1,
      });
      await store().webhooks.finishWebhookAttempts([
        result(gone!, { state: 'failed' }, 410, { attempt: stamp(0) }),
        result(fine!, { state: 'delivered' }, 200, { attempt: stamp(5) }),
      ]);
      const endpointNow = (await store().webhooks.getWebhook(w.webhook_id))!;
      assert.deepEqual([endpointNow.enabled, endpointNow.disabled_reason], [false, 'gone']);
      assert.equal((await byId(w.webhook_id)).get(fine!.message_id)!.state, 'delivered');
    });

    test('a Retry-After uses no delay of the schedule; a delay of the schedule uses one', async () => {
      const { event, tickets } = await seed(1);
      const w = endpoint({ eid: event.eid });
      await store().webhooks.createWebhook(w);
      await checkInAll(event.eid, tickets);
      let [m] = await claimOf(w);
      await store().webhooks.finishWebhookAttempts([result(m!, { state: 'pending', delay_s: 0, step: false }, 503)]);
      [m] = await claimOf(w);
      assert.deepEqual([m!.attempt_count, m!.schedule_step], [1, 0]);
      await store().webhooks.finishWebhookAttempts([result(m!, { state: 'pending', delay_s: 0, step: true }, 500)]);
      [m] = await claimOf(w);
      assert.deepEqual([m!.attempt_count, m!.schedule_step], [2, 1]);
    });

    test('a redelivery asked for during an attempt is kept: the message is due again whatever it answered', async () => {
      const { event, tickets } = await seed(1);
      const w = endpoint({ eid: event.eid });
      await store().webhooks.createWebhook(w);
      await checkInAll(event.eid, tickets);
      const [m] = await claimOf(w);
      assert.equal(await store().webhooks.redeliverWebhookMessage(w.webhook_id, m!.message_id, now()), true);
      assert.deepEqual(await claimOf(w), [], 'the attempt under way keeps its lease');
      await store().webhooks.finishWebhookAttempts([result(m!, { state: 'delivered' }, 200)]);
      const after = (await byId(w.webhook_id)).get(m!.message_id)!;
      assert.deepEqual([after.state, after.attempts.length], ['pending', 1]);
      const [again] = await claimOf(w);
      assert.equal(again!.message_id, m!.message_id, 'attempted again');
      await store().webhooks.finishWebhookAttempts([result(again!, { state: 'delivered' }, 200)]);
      assert.equal((await byId(w.webhook_id)).get(m!.message_id)!.state, 'delivered');
    });

    test('an endpoint failing since before the limit is disabled; enabling it again clears the run', async () => {
      const { event, tickets } = await seed(1);
      const w = endpoint({ eid: event.eid });
      await store().webhooks.createWebhook(w);
      await checkInAll(event.eid, tickets);
      await store().webhooks.updateWebhook(w.webhook_id, {});
      const [m] = await claimOf(w);
      const limit = new Date(Date.now() + 60_000).toISOString();
      await store().webhooks.finishWebhookAttempts([
        result(m!, { state: 'pending', delay_s: 10, step: true }, 500, { failing_before: limit }),
      ]);
      const off = (await store().webhooks.getWebhook(w.webhook_id))!;
      assert.deepEqual([off.enabled, off.disabled_reason], [false, 'failing']);
      assert.equal((await byId(w.webhook_id)).get(m!.message_id)!.state, 'failed');
      const on = (await store().webhooks.updateWebhook(w.webhook_id, { enabled: true }))!;
      assert.deepEqual([on.enabled, on.failing_since, on.disabled_reason], [true, null, null]);
      assert.equal(await store().webhooks.deleteWebhook(w.webhook_id), true);
      assert.equal(await store().webhooks.getWebhook(w.webhook_id), null);
      assert.equal(await store().webhooks.deleteWebhook(w.webhook_id), false);
    });

    test('upkeep: a disabled endpoint’s backlog is failed and a deleted one’s purged, a bounded batch at a time', async () => {
      const { event, tickets } = await seed(9);
      const deleted = endpoint({ eid: event.eid });
      await store().webhooks.createWebhook(deleted);
      await checkInAll(event.eid, tickets.slice(0, 2));
      const attempted = await claimOf(deleted);
      await store().webhooks.finishWebhookAttempts(attempted.map((m) => result(m, { state: 'delivered' }, 200)));
      const disabled = endpoint({ eid: event.eid });
      const healthy = endpoint({ eid: event.eid });
      for (const w of [disabled, healthy]) await store().webhooks.createWebhook(w);
      await checkInAll(event.eid, tickets.slice(2));
      await store().webhooks.updateWebhook(disabled.webhook_id, {
        enabled: false,
        disabled_reason: 'by the organizer',
      });
      await store().webhooks.deleteWebhook(deleted.webhook_id);
      const stillPending = (await deliveries(disabled.webhook_id)).filter((d) => d.state === 'pending').length;
      assert.equal(stillPending, 7, 'disabling touched no message');

      const steps = await upkeepUntilIdle(2);
      assert.ok(steps.filter((s) => s.failed > 0).length >= 4, 'seven failed, two at a time');
      assert.ok(steps.filter((s) => s.purged > 0).length >= 5, 'nine purged, two at a time');
      assert.ok((await deliveries(disabled.webhook_id)).every((d) => d.state === 'failed'));
      assert.equal((await deliveries(deleted.webhook_id)).length, 0, 'its messages and attempts are gone');
      assert.equal((await deliveries(healthy.webhook_id)).filter((d) => d.state === 'pending').length, 7);
    });

    test('a change that commits after its endpoint was deleted or disabled leaves no message behind', async () => {
      const disabled = endpoint();
      const deleted = endpoint();
      for (const w of [disabled, deleted]) await store().webhooks.createWebhook(w);
      await store().webhooks.updateWebhook(disabled.webhook_id, {
        enabled: false,
        disabled_reason: 'by the organizer',
      });
      await store().webhooks.deleteWebhook(deleted.webhook_id);
      // What a transaction that read the subscriptions before the change committed writes afterwards.
      const late = { type: 'ticket.revoked' as const, eid: null, data: {}, position: null, occurred_at: now() };
      const forDisabled = await store().webhooks.enqueueWebhookMessage(disabled.webhook_id, late);
      await store().webhooks.enqueueWebhookMessage(deleted.webhook_id, late);
      await upkeepUntilIdle(100);
      assert.equal((await byId(disabled.webhook_id)).get(forDisabled)!.state, 'failed');
      assert.equal((await deliveries(deleted.webhook_id)).length, 0);
    });

    test('retention: delivered and failed messages are deleted with their attempts once it passed; pending ones stay', async () => {
      const { event, tickets } = await seed(3);
      const w = endpoint({ eid: event.eid });
      await store().webhooks.createWebhook(w);
      await checkInAll(event.eid, tickets);
      const [delivered, failed, pending] = await claimOf(w);
      await store().webhooks.finishWebhookAttempts([
        result(delivered!, { state: 'delivered' }, 200),
        result(failed!, { state: 'failed' }, 500),
        result(pending!, { state: 'pending', delay_s: 3600, step: true }, 500),
      ]);
      await upkeepUntilIdle(1000, 3600);
      assert.equal((await deliveries(w.webhook_id)).length, 3, 'within the retention: kept');
      await sleep(1100);
      const steps = await upkeepUntilIdle(1, 1);
      assert.ok(steps.filter((s) => s.expired > 0).length >= 2, 'one at a time');
      const left = await deliveries(w.webhook_id);
      assert.deepEqual(
        left.map((d) => [d.message_id, d.state, d.attempts.length]),
        [[pending!.message_id, 'pending', 1]],
      );
    });
  });
}
