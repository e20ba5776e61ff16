import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { eventDayOf, eventDayStart } from '@ticket-issuer/protocol';
import { FixedClock } from '../../src/domain/clock.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { ADMIN_TOKEN, adminCall, testIssuer, type TestIssuer } from '../helpers/app.ts';
import {
  autoExits,
  calendarStarting,
  eventually,
  feed,
  fewLooks,
  gathering,
  letAllIn,
  occupancy,
  pass,
  status,
  wholeMinuteAfter,
  wire,
} from '../helpers/auto-exit.ts';
import { twoIssuersOnOneDatabase } from '../helpers/postgres-issuers.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';
import { Receiver, verify } from '../helpers/webhook-receiver.ts';

/**
 * Automatic exit (CONTRACT.md, "Entry rules for real events"): with `auto_exit` on, at the start of each
 * event day every holder still inside is counted out once, within 60 s, whatever the number of
 * instances: a `checked_out` change with `scanner_id` and `gate_id` null and `auto: true` at the day's
 * start, a `ticket.checked_out` webhook with `scanner_id` null, occupancy down by as many. An instance
 * that was down at that moment catches up when it starts.
 */
const SECOND = 1000;
const pg = await postgresAvailability('automatic exit on PostgreSQL');

/** A database that instances can be opened on one after the other. */
interface Database {
  open(): Promise<Store>;
  drop(): Promise<void>;
}

const BACKENDS: { name: string; skip: string | undefined; database(): Promise<Database> }[] = [
  {
    name: 'SQLite',
    skip: undefined,
    database: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'auto-exit-'));
      return {
        open: async () => new SqliteStore(join(dir, 'issuer.db')),
        drop: async () => rmSync(dir, { recursive: true }),
      };
    },
  },
  {
    name: 'PostgreSQL',
    skip: pg.skip,
    database: async () => {
      if (pg.problem !== null) assert.fail(`PostgreSQL is required (REQUIRE_SERVICES=1): ${pg.problem}`);
      const database = await freshDatabase();
      return { open: () => PostgresStore.open(database.url), drop: database.drop };
    },
  },
];

/** An instance on the database, its clock near the real time (receivers check webhook timestamps). */
const instance = async (database: Database, clock: FixedClock) =>
  testIssuer({ store: await database.open(), clock, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });

for (const backend of BACKENDS) {
  const it = itUnless(backend.skip);

  describe(`automatic exit at the start of an event day (${backend.name})`, () => {
    const clock = new FixedClock(new Date());
    let database: Database | undefined;
    let issuer: TestIssuer | undefined;
    let receiver: Receiver | undefined;
    before(async () => {
      if (backend.skip !== undefined) return;
      database = await backend.database();
      issuer = await instance(database, clock);
      receiver = await Receiver.start();
    });
    after(async () => {
      await issuer?.close();
      await receiver?.close();
      await database?.drop();
    });

    it('holders inside are counted out at the day start, once: feed, webhook, occupancy; a later entry stays in', async () => {
      const { app } = issuer!;
      const now = clock.now();
      const start = wholeMinuteAfter(now, 1);
      const calendar = calendarStarting(start);
      const hook = await adminCall<{ secret: string }>(app, 'POST', '/admin/v1/webhooks', {
        url: receiver!.url,
        event_types: ['ticket.checked_out'],
      });
      const on = await gathering(app, now, { ...calendar, auto_exit: true, reentry: true }, 4);
      const off = await gathering(app, now, { ...calendar, auto_exit: false }, 1);
      const [ada, grace, alan, late] = on.tids as [string, string, string, string];
      for (const tid of [ada, grace, alan]) assert.equal(await pass(app, on, 'in', tid, now), 'valid');
      assert.equal(await pass(app, on, 'out', alan, new Date(now.getTime() + SECOND)), 'checked_out');
      assert.equal(await pass(app, off, 'in', off.tids[0]!, now), 'valid');
      // Before the day starts by the issuer's clock, a scanner running a little ahead lets one in after it.
      clock.set(new Date(start.getTime() - 30 * SECOND));
      assert.equal(await pass(app, on, 'in', late, new Date(start.getTime() + 20 * SECOND)), 'valid');
      await fewLooks();
      assert.equal((await occupancy(app, on)).inside, 3, 'nobody is counted out before the day starts');

      clock.set(new Date(start.getTime() + 30 * SECOND));
      await eventually('the automatic exit', async () => (await occupancy(app, on)).inside === 1);
      const exits = await autoExits(app, on);
      assert.deepEqual(exits.map((c) => c.tid).sort(), [ada, grace].sort());
      for (const change of exits) {
        assert.deepEqual(change, { ...change, at: wire(start), scanner_id: null, gate_id: null, auto: true });
      }
      const manual = (await feed(app, on)).filter((c) => c.type === 'checked_out' && c.auto === undefined);
      assert.deepEqual(
        manual.map((c) => [c.tid, c.scanner_id, c.gate_id]),
        [[alan, on.scannerId, 'north']],
      );
      const counts = await occupancy(app, on);
      assert.deepEqual([counts.inside, counts.entries, counts.exits], [1, 4, 3]);
      assert.deepEqual(
        counts.gates.find((g) => g.gate_id === null),
        { gate_id: null, name: null, entries: 0, exits: 2 },
      );
      const adaNow = await status(app, on, ada);
      assert.deepEqual([adaNow.inside, adaNow.checked_out_at], [false, wire(start)]);
      assert.equal((await status(app, on, late)).inside, true, 'who came in after the day started stays in');

      // Each exit's ticket.checked_out message: no scanner, no gate, the day's start, the feed's position.
      const messages = await receiver!.waitFor((r) => {
        const body = JSON.parse(r.body) as { data: { eid: string; scanner_id: string | null } };
        return body.data.eid === on.eid && body.data.scanner_id === null;
      }, 2);
      const data = messages
        .map((r) => verify(hook.secret, r).data)
        .sort((a, b) => Number(a.position) - Number(b.position));
      assert.deepEqual(
        data,
        exits.map((c) => ({
          eid: on.eid,
          tid: c.tid,
          checked_out_at: wire(start),
          scanner_id: null,
          gate_id: null,
          position: c.position,
        })),
      );

      // Out means out: with re-entry on, the holder comes in again; nothing is counted out twice.
      assert.equal(await pass(app, on, 'in', grace, new Date(start.getTime() + 40 * SECOND)), 'valid');
      clock.set(new Date(start.getTime() + 50 * SECOND));
      await fewLooks();
      assert.equal((await autoExits(app, on)).length, 2);
      assert.equal((await occupancy(app, on)).inside, 2);
      // auto_exit false: the other event's holder is still inside, and its feed has no automatic exit.
      assert.equal((await occupancy(app, off)).inside, 1);
      assert.deepEqual(await autoExits(app, off), []);
    });

    it('switched on during a day, it counts out from the next day start, not the one that passed', async () => {
      const { app } = issuer!;
      const start = wholeMinuteAfter(clock.now(), 1);
      const calendar = calendarStarting(start);
      const g = await gathering(app, clock.now(), { ...calendar, auto_exit: false }, 1);
      assert.equal(await pass(app, g, 'in', g.tids[0]!, clock.now()), 'valid');
      clock.set(new Date(start.getTime() + 60 * SECOND));
      const patched = await app.inject({
        method: 'PATCH',
        url: `/admin/v1/events/${g.eid}`,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        payload: { auto_exit: true },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      await fewLooks();
      assert.equal((await occupancy(app, g)).inside, 1, 'the day start before the switch counts nobody out');
      clock.set(new Date(start.getTime() + 25 * 3600 * SECOND));
      const nextStart = eventDayStart(eventDayOf(clock.now(), calendar), calendar);
      await eventually('the next day start', async () => (await occupancy(app, g)).inside === 0);
      assert.deepEqual(
        (await autoExits(app, g)).map((c) => [c.tid, c.at]),
        [[g.tids[0], wire(nextStart)]],
      );
    });

    it('a large event: every holder out once, at consecutive feed positions, in one go', async () => {
      const { app } = issuer!;
      const start = wholeMinuteAfter(clock.now(), 1);
      const g = await gathering(app, clock.now(), { ...calendarStarting(start), auto_exit: true }, 5_100);
      await letAllIn(app, g, clock.now());
      clock.set(new Date(start.getTime() + SECOND));
      await eventually('the automatic exit', async () => (await occupancy(app, g)).inside === 0, 60_000);
      const changes = await feed(app, g);
      const exits = changes.filter((c) => c.auto === true);
      assert.equal(exits.length, 5_100);
      assert.deepEqual(new Set(exits.map((c) => c.tid)), new Set(g.tids));
      // Entries first, then the exits, positions without a gap.
      assert.deepEqual(
        exits.map((c) => c.position),
        Array.from({ length: 5_100 }, (_, n) => 5_101 + n),
      );
    });

    it('an instance started after the day start catches up: the exits are at that start', async () => {
      const start = wholeMinuteAfter(clock.now(), 1);
      const g = await gathering(issuer!.app, clock.now(), { ...calendarStarting(start), auto_exit: true }, 3);
      await letAllIn(issuer!.app, g, clock.now());
      await issuer!.close();
      issuer = undefined;
      // Every instance is down when the day starts; one comes back ten minutes later.
      clock.set(new Date(start.getTime() + 10 * 60 * SECOND));
      issuer = await instance(database!, clock);
      const { app } = issuer;
      await eventually('the catch-up', async () => (await occupancy(app, g)).inside === 0);
      const exits = await autoExits(app, g);
      assert.deepEqual(exits.map((c) => c.tid).sort(), [...g.tids].sort());
      assert.deepEqual(new Set(exits.map((c) => c.at)), new Set([wire(start)]));
    });
  });
}

describe('automatic exit with two instances on one PostgreSQL database', () => {
  const it = itUnless(pg.skip);
  const clock = new FixedClock(new Date());
  const issuers = twoIssuersOnOneDatabase(pg, clock);

  it('both look at the day start; each holder is counted out exactly once', async () => {
    const { a, b } = issuers();
    const start = wholeMinuteAfter(clock.now(), 1);
    const calendar = calendarStarting(start);
    const events = [];
    for (let n = 0; n < 4; n += 1) {
      const g = await gathering(n % 2 === 0 ? a.app : b.app, clock.now(), { ...calendar, auto_exit: true }, 150);
      await letAllIn(n % 2 === 0 ? b.app : a.app, g, clock.now());
      events.push(g);
    }
    clock.set(new Date(start.getTime() + SECOND));
    for (const g of events) {
      await eventually('the automatic exit', async () => (await occupancy(a.app, g)).inside === 0);
    }
    await fewLooks();
    for (const g of events) {
      const exits = await autoExits(b.app, g);
      assert.equal(exits.length, 150, 'one automatic exit per holder');
      assert.deepEqual(new Set(exits.map((c) => c.tid)), new Set(g.tids));
      const counts = await occupancy(b.app, g);
      assert.deepEqual([counts.inside, counts.entries, counts.exits], [0, 150, 150]);
    }
  });
});
