import assert from 'node:assert/strict';
import { describe } from 'node:test';
import type { CheckInAttempt, CheckInVerdict, EventRecord, Store, TicketRecord } from '../../src/store/store.ts';
import type { AttemptResult, WebhookRecord } from '../../src/store/webhook-records.ts';

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

/** The webhook endpoints and the outbox: part of the one conformance suite. */
export function outboxConformance(c: OutboxSuiteContext): void {
  const { test, store, seed, newAttempt, gateDecider, at } = c;
  const deliveries = async (webhookId: string) => (await store().listWebhookDeliveries(webhookId, 100, null)).items;
  const claimAll = (owner: string, now = at(60)) =>
    store().claimWebhookMessages({ now, leaseUntil: at(61), owner, limit: 1000, perEndpoint: 1000, limits: [] });

  describe('webhook outbox', () => {
    test('a check-in writes one message per subscribed endpoint, in its transaction; a replay none', async () => {
      const { event, tickets } = await seed(2);
      const other = await seed(1);
      const all = endpoint();
      const mine = endpoint({ eid: event.eid, event_types: ['ticket.checked_in'] });
      const elsewhere = endpoint({ eid: other.event.eid });
      const revocations = endpoint({ event_types: ['ticket.revoked'] });
      const off = endpoint({ enabled: false });
      for (const w of [all, mine, elsewhere, revocations, off]) await store().createWebhook(w);

      const attempt = newAttempt(event.eid, tickets[0]!.tid, { gate_id: 'north', admitted_offline: true });
      await store().checkIn(attempt, gateDecider(at(5)));
      await store().checkIn(attempt, gateDecider(at(5)));
      const [message, ...more] = await deliveries(mine.webhook_id);
      assert.equal(more.length, 0, 'one message, none for the replay');
      assert.equal(message!.type, 'ticket.checked_in');
      assert.equal(message!.state, 'pending');
      assert.match(message!.message_id, /^msg_[0-9a-f]{32}$/);
      assert.equal((await deliveries(all.webhook_id)).length, 1);
      assert.equal((await deliveries(elsewhere.webhook_id)).length, 0, 'another event');
      assert.equal((await deliveries(revocations.webhook_id)).length, 0, 'another type');
      assert.equal((await deliveries(off.webhook_id)).length, 0, 'a disabled endpoint');

      const claimed = (await claimAll('worker-a')).find((m) => m.webhook_id === mine.webhook_id)!;
      assert.deepEqual(JSON.parse(claimed.data), {
        eid: event.eid,
        tid: tickets[0]!.tid,
        holder_name: tickets[0]!.holder_name,
        ticket_type: tickets[0]!.ticket_type,
        checked_in_at: at(5).replace('.000Z', 'Z'),
        scanner_id: attempt.scanner_id,
        gate_id: 'north',
        admitted_offline: true,
      });
      assert.equal(claimed.position, 1, 'the change’s position in the feed');
      assert.equal(claimed.occurred_at, attempt.received_at);

      // A decision that throws stores nothing, and no message either.
      const failing = newAttempt(event.eid, tickets[1]!.tid);
      await assert.rejects(
        store().checkIn(failing, () => {
          throw new Error('decision failed');
        }),
      );
      assert.equal((await deliveries(mine.webhook_id)).length, 1);
    });

    test('revocation, reissue, enrolment and key revocation write their messages', async () => {
      const { event, tickets } = await seed(2);
      const all = endpoint({ eid: event.eid });
      await store().createWebhook(all);
      await store().revokeTicket(tickets[0]!.tid, at(5), 'refund');
      await store().revokeTicket(tickets[0]!.tid, at(6), 'again');
      const types = (await deliveries(all.webhook_id)).map((d) => d.type);
      assert.deepEqual(types, ['ticket.revoked'], 'a second revocation changes nothing');
      const claimed = await claimAll('worker-b');
      const revoked = claimed.find((m) => m.webhook_id === all.webhook_id)!;
      assert.deepEqual(JSON.parse(revoked.data), {
        eid: event.eid,
        tid: tickets[0]!.tid,
        revoked_at: at(5).replace('.000Z', 'Z'),
        reason: 'refund',
      });
    });

    test('claims never hand one message to two workers; a lapsed lease frees it', async () => {
      const { event, tickets } = await seed(20);
      const w = endpoint({ eid: event.eid });
      await store().createWebhook(w);
      for (const t of tickets) await store().checkIn(newAttempt(event.eid, t.tid), gateDecider(at(5)));
      const claims = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          store().claimWebhookMessages({
            now: at(60),
            leaseUntil: at(61),
            owner: `w${i}`,
            limit: 1000,
            perEndpoint: 6,
            limits: [],
          }),
        ),
      );
      const rest = await claimAll('rest', at(60));
      const ids = [...claims.flat(), ...rest].filter((m) => m.webhook_id === w.webhook_id).map((m) => m.message_id);
      assert.equal(new Set(ids).size, ids.length, 'no message claimed twice');
      assert.equal(ids.length, 20, 'each claimed once');
      assert.ok(
        claims.every((claim) => claim.filter((m) => m.webhook_id === w.webhook_id).length <= 6),
        'at most perEndpoint of one endpoint in a claim',
      );
      const late = (await claimAll('late', at(60))).filter((m) => m.webhook_id === w.webhook_id);
      assert.deepEqual(late, [], 'all leased');
      const again = (await claimAll('after-lease', at(62))).filter((m) => m.webhook_id === w.webhook_id);
      assert.equal(again.length, 20, 'free again once the leases lapsed');
    });

    test('attempts: delivered, retried, failing since, and disabled on 410 with its pending messages failed', async () => {
      const { event, tickets } = await seed(3);
      const w = endpoint({ eid: event.eid });
      await store().createWebhook(w);
      for (const t of tickets) await store().checkIn(newAttempt(event.eid, t.tid), gateDecider(at(5)));
      const [a, b, cMsg] = (await claimAll('w')).filter((m) => m.webhook_id === w.webhook_id);
      const result = (
        m: typeof a,
        next: AttemptResult['next'],
        status: number | null,
        disable: 'gone' | null = null,
      ) => ({
        message_id: m!.message_id,
        webhook_id: w.webhook_id,
        lease_owner: 'w',
        attempt: {
          at: at(60),
          status_code: status,
          error: status === null ? 'connection refused' : null,
          duration_ms: 3,
        },
        next,
        disable,
        failing_before: at(-7200),
      });
      await store().finishWebhookAttempts([
        result(a, { state: 'delivered' }, 204),
        result(b, { state: 'pending', next_attempt_at: at(65) }, null),
      ]);
      assert.equal((await store().getWebhook(w.webhook_id))!.failing_since, at(60));
      // A result under a lease that was taken over is dropped.
      await store().finishWebhookAttempts([
        { ...result(cMsg, { state: 'delivered' }, 200), lease_owner: 'someone-else' },
      ]);
      const byId = new Map((await deliveries(w.webhook_id)).map((d) => [d.message_id, d]));
      assert.equal(byId.get(a!.message_id)!.state, 'delivered');
      assert.deepEqual(byId.get(a!.message_id)!.attempts, [
        { at: at(60), status_code: 204, error: null, duration_ms: 3 },
      ]);
      assert.equal(byId.get(b!.message_id)!.state, 'pending');
      assert.equal(byId.get(b!.message_id)!.next_attempt_at, at(65));
      assert.equal(byId.get(cMsg!.message_id)!.attempts.length, 0);

      const [retry] = (await claimAll('w', at(66))).filter((m) => m.message_id === b!.message_id);
      assert.equal(retry!.attempt_count, 1);
      await store().finishWebhookAttempts([result(retry, { state: 'pending', next_attempt_at: at(70) }, 410, 'gone')]);
      const disabled = (await store().getWebhook(w.webhook_id))!;
      assert.deepEqual([disabled.enabled, disabled.disabled_reason], [false, 'gone']);
      const failed = (await deliveries(w.webhook_id)).find((d) => d.message_id === b!.message_id)!;
      assert.equal(failed.state, 'failed', 'not tried again');
      // A disabled endpoint gets no new messages; a redelivery still makes one pending.
      await store().revokeTicket(tickets[0]!.tid, at(80), null);
      assert.equal((await deliveries(w.webhook_id)).length, 3);
      assert.equal(await store().redeliverWebhookMessage(w.webhook_id, b!.message_id, at(90)), true);
      assert.equal(await store().redeliverWebhookMessage(w.webhook_id, 'msg_none', at(90)), false);
      assert.equal((await deliveries(w.webhook_id)).find((d) => d.message_id === b!.message_id)!.state, 'pending');
    });

    test('an endpoint failing since before the limit is disabled; enabling it again clears the run', async () => {
      const { event, tickets } = await seed(1);
      const w = endpoint({ eid: event.eid });
      await store().createWebhook(w);
      await store().checkIn(newAttempt(event.eid, tickets[0]!.tid), gateDecider(at(5)));
      await store().updateWebhook(w.webhook_id, {});
      const [m] = (await claimAll('w')).filter((x) => x.webhook_id === w.webhook_id);
      await store().finishWebhookAttempts([
        {
          message_id: m!.message_id,
          webhook_id: w.webhook_id,
          lease_owner: 'w',
          attempt: { at: at(60), status_code: 500, error: null, duration_ms: 1 },
          next: { state: 'pending', next_attempt_at: at(70) },
          disable: null,
          failing_before: at(60),
        },
      ]);
      const off = (await store().getWebhook(w.webhook_id))!;
      assert.deepEqual([off.enabled, off.disabled_reason], [false, 'failing']);
      const on = (await store().updateWebhook(w.webhook_id, { enabled: true }))!;
      assert.deepEqual([on.enabled, on.failing_since, on.disabled_reason], [true, null, null]);
      assert.equal(await store().deleteWebhook(w.webhook_id), true);
      assert.equal(await store().getWebhook(w.webhook_id), null);
      assert.equal(await store().deleteWebhook(w.webhook_id), false);
    });
  });
}
