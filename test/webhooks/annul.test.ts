/**
 * An annulled entry reaches a real receiver as `ticket.check_in_annulled`, verified with the
 * `standardwebhooks` package: the contract's fields, `annulled_at` the device's value (the issuer's
 * clock for an organizer's annul), and `position` the annulled change's place in the event's feed.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe } from 'node:test';
import { FixedClock } from '../../src/domain/clock.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { ADMIN_TOKEN, adminCall, enrollScanner, postCheckIn, testIssuer, type TestIssuer } from '../helpers/app.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';
import { Receiver } from '../helpers/webhook-receiver.ts';

const pg = await postgresAvailability('the annul webhook on PostgreSQL');

type Json = Record<string, unknown>;

/** The instant as answers and messages give it (no milliseconds when they are zero). */
const wire = (at: Date) => at.toISOString().replace('.000Z', 'Z');

function annulWebhookSuite(
  name: string,
  skip: string | undefined,
  open: () => Promise<{ store: Store; drop?: () => Promise<void> }>,
) {
  describe(`the ticket.check_in_annulled webhook (${name})`, () => {
    const it = itUnless(skip);
    let t: TestIssuer;
    let clock: FixedClock;
    let receiver: Receiver;
    let drop: (() => Promise<void>) | undefined;
    before(async () => {
      if (skip !== undefined) return;
      const opened = await open();
      drop = opened.drop;
      // Near the real time (receivers check `webhook-timestamp` against their clock), on a whole second,
      // and never ahead of it: PostgreSQL times the outbox by the database's clock.
      clock = new FixedClock(new Date(Math.floor(Date.now() / 1000) * 1000 - 120_000));
      t = await testIssuer({ store: opened.store, clock, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
      receiver = await Receiver.start();
    });
    after(async () => {
      await t?.close();
      await receiver?.close();
      await drop?.();
    });

    it('a scanner’s annul and an organizer’s each send one message with the contract’s fields and the feed’s position', async () => {
      const { eid } = await adminCall<{ eid: string }>(t.app, 'POST', '/admin/v1/events', {
        name: 'Undo Night',
        event_date: new Date(clock.now().getTime() + 86_400_000).toISOString(),
      });
      const ticket = async (holder_name: string) =>
        (
          await adminCall<{ tid: string }>(t.app, 'POST', `/admin/v1/events/${eid}/tickets`, {
            holder_name,
            ticket_type: 'GA',
          })
        ).tid;
      const scannerId = randomUUID();
      const { apiKey } = await enrollScanner(t.app, eid, scannerId);
      // One endpoint takes annuls only (the type is accepted in event_types), one takes check-ins only.
      const annuls = await adminCall<{ secret: string; webhook_id: string; event_types: string[] }>(
        t.app,
        'POST',
        '/admin/v1/webhooks',
        { url: receiver.url, event_types: ['ticket.check_in_annulled'], eid },
      );
      assert.deepEqual(annuls.event_types, ['ticket.check_in_annulled']);
      const checkIns = await adminCall<{ webhook_id: string }>(t.app, 'POST', '/admin/v1/webhooks', {
        url: receiver.url,
        event_types: ['ticket.checked_in'],
        eid,
      });
      const feed = async () =>
        (
          await t.app.inject({
            method: 'GET',
            url: `/api/v1/events/${eid}/changes?limit=1000`,
            headers: { authorization: `Bearer ${apiKey}` },
          })
        ).json().changes as Json[];
      /** The feed's position of the ticket's annulled change: the feed counts 1, 2, 3… from its start. */
      const annulledPosition = async (tid: string) =>
        (await feed()).findIndex((c) => c.type === 'annulled' && c.tid === tid) + 1;
      const enter = async (tid: string, gate_id: string) => {
        const key = randomUUID();
        const res = await postCheckIn(t.app, apiKey, {
          tid,
          eid,
          scanned_at: clock.now().toISOString(),
          scanner_id: scannerId,
          gate_id,
          idempotency_key: key,
        });
        assert.equal(res.json().status, 'valid');
        return key;
      };
      const messagesOf = async (tid: string) => {
        // Delivery runs in the background: give a duplicate time to arrive before counting.
        await new Promise((resolve) => setTimeout(resolve, 300));
        return receiver.bodies().filter((b) => b.type === 'ticket.check_in_annulled' && b.data.tid === tid);
      };

      // A scanner undoes its own entry, 20 s later by its own clock.
      const ada = await ticket('Ada Lovelace');
      const key = await enter(ada, 'north');
      await enter(await ticket('Grace Hopper'), 'south');
      clock.advance(30_000);
      const undoneAt = wire(new Date(clock.now().getTime() - 10_000));
      const annul = () =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/tickets/check-in/annul',
          headers: { authorization: `Bearer ${apiKey}` },
          payload: { eid, scanner_id: scannerId, idempotency_key: key, annulled_at: undoneAt },
        });
      assert.equal((await annul()).statusCode, 200);
      const { payload } = await receiver.message(annuls.secret, 'ticket.check_in_annulled');
      const position = await annulledPosition(ada);
      assert.equal(position, 3, 'after the two check-ins');
      assert.deepEqual(payload.data, {
        eid,
        tid: ada,
        scanner_id: scannerId,
        gate_id: 'north',
        annulled_at: undoneAt,
        position,
      });
      assert.equal(payload.timestamp, wire(clock.now()), 'when the issuer committed the annul');
      // The same annul again answers 200 and sends nothing more.
      assert.equal((await annul()).statusCode, 200);
      assert.equal((await messagesOf(ada)).length, 1);

      // An organizer annuls a line of the scan log: the issuer's clock, the entry's scanner and gate.
      const grace = (
        await adminCall<{ scans: { scan_id: number; tid: string }[] }>(t.app, 'GET', `/admin/v1/events/${eid}/scans`)
      ).scans.find((s) => s.tid !== ada)!;
      clock.advance(60_000);
      const organizer = await t.app.inject({
        method: 'POST',
        url: `/admin/v1/events/${eid}/scans/${grace.scan_id}/annul`,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        payload: { reason: 'turnstile did not turn' },
      });
      assert.equal(organizer.statusCode, 200, organizer.body);
      const [second] = await receiver.waitFor(
        (r) => r.body.includes('ticket.check_in_annulled') && r.body.includes(grace.tid),
      );
      const data = (JSON.parse(second!.body) as { data: Json }).data;
      assert.deepEqual(data, {
        eid,
        tid: grace.tid,
        scanner_id: scannerId,
        gate_id: 'south',
        annulled_at: wire(clock.now()),
        position: await annulledPosition(grace.tid),
      });
      assert.equal(data.position, 4);
      assert.equal((await messagesOf(grace.tid)).length, 1);

      // Each endpoint got only its types: the check-in endpoint no annul.
      const typesOf = async (webhookId: string) =>
        (
          await adminCall<{ deliveries: { type: string }[] }>(
            t.app,
            'GET',
            `/admin/v1/webhooks/${webhookId}/deliveries`,
          )
        ).deliveries.map((d) => d.type);
      assert.deepEqual(await typesOf(annuls.webhook_id), ['ticket.check_in_annulled', 'ticket.check_in_annulled']);
      assert.deepEqual(await typesOf(checkIns.webhook_id), ['ticket.checked_in', 'ticket.checked_in']);
    });
  });
}

annulWebhookSuite('SQLite', undefined, async () => ({ store: new SqliteStore(':memory:') }));
annulWebhookSuite('PostgreSQL', pg.skip, async () => {
  if (pg.problem !== null) assert.fail(`PostgreSQL is required (REQUIRE_SERVICES=1): ${pg.problem}`);
  const database = await freshDatabase();
  return { store: await PostgresStore.open(database.url), drop: database.drop };
});
