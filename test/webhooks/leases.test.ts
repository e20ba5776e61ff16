/**
 * Leases on PostgreSQL are per claim and timed by the database's clock: two issuer instances on one
 * database, one of whose clocks runs 10 minutes ahead, never attempt one message at the same moment,
 * and each message is attempted once. (A result recorded under a lease that a newer claim took over is
 * dropped: the store's conformance suite.)
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { FixedClock } from '../../src/domain/clock.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { testIssuer, type TestIssuer } from '../helpers/app.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';
import { Receiver } from '../helpers/webhook-receiver.ts';

/** The real time, shifted: an instance whose clock is off. */
class SkewedClock extends FixedClock {
  constructor(private readonly skewMs: number) {
    super(new Date());
  }
  override now(): Date {
    return new Date(Date.now() + this.skewMs);
  }
}

const admin = { authorization: 'Bearer test-admin-token-0123456789abcdef' };
const env = { WEBHOOK_ALLOW_PRIVATE: 'true' };
const postgres = await postgresAvailability('webhook leases on two instances');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('webhook leases on two instances sharing PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  const issuers: TestIssuer[] = [];
  let receiver: Receiver;

  before(async () => {
    if (postgres.skip) return;
    database = await freshDatabase();
    receiver = await Receiver.start();
  });
  after(async () => {
    for (const issuer of issuers) await issuer.close();
    await receiver?.close();
    await database?.drop();
  });

  async function instance(skewMs: number): Promise<TestIssuer> {
    const issuer = await testIssuer({
      store: await PostgresStore.open(database!.url),
      clock: new SkewedClock(skewMs),
      env,
    });
    issuers.push(issuer);
    await issuer.app.ready(); // its delivery worker starts
    return issuer;
  }

  itUnless(postgres.skip)(
    'an instance whose clock runs 10 minutes ahead never takes over a lease another instance is attempting under',
    async () => {
      const a = await instance(0);
      // Each attempt takes 3 s: the messages are under way at A when B starts looking.
      receiver.holdMs = 3000;
      const created = await a.app.inject({
        method: 'POST',
        url: '/admin/v1/webhooks',
        headers: admin,
        payload: { url: receiver.url, event_types: ['*'] },
      });
      const webhookId = created.json().webhook_id as string;
      const ids: string[] = [];
      for (let i = 0; i < 10; i += 1) {
        const queued = await a.app.inject({
          method: 'POST',
          url: `/admin/v1/webhooks/${webhookId}/test`,
          headers: admin,
        });
        ids.push(queued.json().message_id as string);
      }
      await receiver.waitFor((r) => ids.includes(r.id), 10);
      const b = await instance(10 * 60_000);
      // B looks for due messages four times a second while A's attempts are under way, and after.
      const deadline = Date.now() + 15_000;
      for (;;) {
        const page = await b.app.inject({ url: `/admin/v1/webhooks/${webhookId}/deliveries`, headers: admin });
        const deliveries = page.json().deliveries as { state: string }[];
        if (deliveries.every((d) => d.state === 'delivered')) break;
        assert.ok(Date.now() < deadline, `not all delivered: ${JSON.stringify(deliveries.map((d) => d.state))}`);
        await sleep(100);
      }
      await sleep(1000);
      assert.deepEqual(receiver.overlaps, [], 'no message attempted twice at the same moment');
      const attempts = receiver.requests.filter((r) => ids.includes(r.id));
      assert.equal(attempts.length, 10, 'each message attempted once');
    },
  );
});
