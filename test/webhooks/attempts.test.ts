/**
 * What an attempt's end makes of a message, through the admin API with the delivery worker running
 * and a real receiver, on SQLite and on a fresh PostgreSQL database: a Retry-After delays the next
 * attempt without using up the schedule, a retry counts from the attempt's end, a 410 disables the
 * endpoint whatever else answered in the same flush, a redelivery asked for during an attempt is not
 * lost, and a deadlock with another writer of the endpoint is retried, never answered 500.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import pg from 'pg';
import { FixedClock } from '../../src/domain/clock.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { testIssuer, type TestIssuer } from '../helpers/app.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';
import { type Answer, Receiver } from '../helpers/webhook-receiver.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The real time: retries are timed by the store's clock on PostgreSQL, so the app's runs with it. */
class RealClock extends FixedClock {
  constructor() {
    super(new Date());
  }
  override now(): Date {
    return new Date();
  }
}

const admin = { authorization: 'Bearer test-admin-token-0123456789abcdef' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const postgres = await postgresAvailability('webhook attempts on PostgreSQL');

interface Opened {
  store: Store;
  url: string | null;
  drop?: () => Promise<void>;
}

const backends: { name: string; skip: string | undefined; open: () => Promise<Opened> }[] = [
  { name: 'SQLite', skip: undefined, open: async () => ({ store: new SqliteStore(':memory:'), url: null }) },
  {
    name: 'PostgreSQL',
    skip: postgres.skip,
    open: async () => {
      const database = await freshDatabase();
      return { store: await PostgresStore.open(database.url), url: database.url, drop: database.drop };
    },
  },
];

/** A gate a held answer waits on. */
function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

for (const backend of backends) {
  describe(`webhook attempts (${backend.name})`, () => {
    const test = itUnless(backend.skip);
    let issuer: TestIssuer;
    let receiver: Receiver;
    let opened: Opened;
    /** Answers by endpoint (each test's messages carry its webhook_id); 200 for the others. */
    const answers = new Map<string, (index: number) => Answer | Promise<Answer>>();

    before(async () => {
      if (backend.skip !== undefined) return;
      opened = await backend.open();
      issuer = await testIssuer({
        store: opened.store,
        clock: new RealClock(),
        env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE_S: '2' },
      });
      receiver = await Receiver.start();
      receiver.answer = (request) => {
        for (const [webhookId, answer] of answers) {
          if (request.body.includes(webhookId)) {
            return answer(receiver.requests.filter((r) => r.body.includes(webhookId)).length - 1);
          }
        }
        return { status: 200 };
      };
    });
    after(async () => {
      await issuer?.close();
      await receiver?.close();
      await opened?.drop?.();
    });

    async function call(method: string, url: string, payload?: object) {
      const res = await issuer.app.inject({
        method: method as 'GET',
        url,
        headers: admin,
        ...(payload ? { payload } : {}),
      });
      return { status: res.statusCode, body: res.body === '' ? null : (res.json() as Json) };
    }

    async function endpoint(answer: (index: number) => Answer | Promise<Answer>): Promise<string> {
      const created = await call('POST', '/admin/v1/webhooks', { url: receiver.url, event_types: ['*'] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      answers.set(created.body!.webhook_id, answer);
      return created.body!.webhook_id as string;
    }

    async function send(webhookId: string): Promise<string> {
      const queued = await call('POST', `/admin/v1/webhooks/${webhookId}/test`);
      assert.equal(queued.status, 202);
      return queued.body!.message_id as string;
    }

    /** The message's delivery record once `done` holds (polling; 15 s at most). */
    async function deliveryWhen(webhookId: string, messageId: string, done: (d: Json) => boolean): Promise<Json> {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const list = (await call('GET', `/admin/v1/webhooks/${webhookId}/deliveries`)).body!.deliveries as Json[];
        const found = list.find((d) => d.message_id === messageId);
        if (found && done(found)) return found;
        if (Date.now() > deadline) assert.fail(`delivery of ${messageId}: ${JSON.stringify(found)}`);
        await sleep(50);
      }
    }

    test('a Retry-After delays the next attempt and does not use up the schedule', async () => {
      // One delay in the schedule: without the Retry-After answers, the second failure would be the last.
      const webhookId = await endpoint((i) =>
        i < 3 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 200 },
      );
      const messageId = await send(webhookId);
      const done = await deliveryWhen(webhookId, messageId, (d) => d.state !== 'pending');
      assert.equal(done.state, 'delivered');
      assert.deepEqual(
        done.attempts.map((a: Json) => a.status_code),
        [503, 503, 503, 200],
      );
      const arrivals = receiver.requests.filter((r) => r.id === messageId).map((r) => r.at);
      for (let i = 1; i < arrivals.length; i += 1) {
        assert.ok(
          arrivals[i]! - arrivals[i - 1]! >= 900,
          `retry ${i} came ${arrivals[i]! - arrivals[i - 1]!} ms later`,
        );
      }
    });

    test('a retry’s delay counts from the end of the attempt', async () => {
      const webhookId = await endpoint(async (i) => {
        if (i > 0) return { status: 200 };
        await sleep(1500);
        return { status: 500 };
      });
      const messageId = await send(webhookId);
      const failed = await deliveryWhen(webhookId, messageId, (d) => d.attempts.length === 1);
      assert.equal(failed.state, 'pending');
      const wait = Date.parse(failed.next_attempt_at) - Date.parse(failed.attempts[0].at);
      // 1.5 s of attempt, then 2 s ± 10 %.
      assert.ok(wait >= 1500 + 1800 - 100 && wait <= 1500 + 2200 + 1000, `due ${wait} ms after the attempt started`);
      const delivered = await deliveryWhen(webhookId, messageId, (d) => d.state === 'delivered');
      assert.equal(delivered.attempts.length, 2);
    });

    test('a 410 disables the endpoint whatever else answered in the same flush', async () => {
      const both = gate();
      const webhookId = await endpoint(async (i) => {
        await both.opened;
        return { status: i === 0 ? 410 : 200 };
      });
      const first = await send(webhookId);
      await receiver.waitFor((r) => r.id === first);
      const second = await send(webhookId);
      await receiver.waitFor((r) => r.id === second);
      both.open(); // both answers leave together: their attempts end in one flush
      await deliveryWhen(webhookId, second, (d) => d.state === 'delivered');
      await deliveryWhen(webhookId, first, (d) => d.state === 'failed');
      const read = (await call('GET', `/admin/v1/webhooks/${webhookId}`)).body!;
      assert.deepEqual([read.enabled, read.disabled_reason], [false, 'gone']);
    });

    test('a redelivery asked for during an attempt is not lost', async () => {
      const held = gate();
      const webhookId = await endpoint(async (i) => {
        if (i === 0) await held.opened;
        return { status: 200 };
      });
      const messageId = await send(webhookId);
      await receiver.waitFor((r) => r.id === messageId);
      const redeliver = await call('POST', `/admin/v1/webhooks/${webhookId}/deliveries/${messageId}/redeliver`);
      assert.equal(redeliver.status, 202);
      held.open();
      await receiver.waitFor((r) => r.id === messageId, 2);
      const done = await deliveryWhen(webhookId, messageId, (d) => d.state === 'delivered' && d.attempts.length === 2);
      assert.deepEqual(
        done.attempts.map((a: Json) => a.status_code),
        [200, 200],
      );
    });

    if (backend.name === 'PostgreSQL') {
      test('a deadlock with another writer of the endpoint is retried, never a 500', async () => {
        const webhookId = await endpoint(() => ({ status: 200 }));
        const other = new pg.Client(opened.url!);
        await other.connect();
        try {
          // The other writer waits longer before it looks for deadlocks: the issuer's transaction is the one PostgreSQL ends.
          await other.query(`SET deadlock_timeout = '10s'`);
          await other.query('BEGIN');
          await other.query('SELECT 1 FROM webhook_subscriptions WHERE webhook_id = $1 FOR UPDATE', [webhookId]);
          const patched = call('PATCH', `/admin/v1/webhooks/${webhookId}`, { description: 'after a deadlock' });
          await sleep(300); // the change holds the endpoint's row and waits for its subscriptions
          const crossing = other.query('SELECT 1 FROM webhooks WHERE webhook_id = $1 FOR UPDATE', [webhookId]);
          await crossing; // granted once PostgreSQL ended the issuer's transaction in a deadlock
          await sleep(200);
          await other.query('COMMIT');
          const answer = await patched;
          assert.equal(answer.status, 200, JSON.stringify(answer.body));
          assert.equal(answer.body!.description, 'after a deadlock');
        } finally {
          await other.end();
        }
      });
    }
  });
}
