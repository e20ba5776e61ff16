import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe } from 'node:test';
import { FixedClock } from '../../src/domain/clock.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { ADMIN_TOKEN, adminCall, enrollScanner, postCheckIn, testIssuer, type TestIssuer } from '../helpers/app.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';
import { Receiver, verify } from '../helpers/webhook-receiver.ts';

/**
 * An admission a scanner made offline that the entry rules refuse keeps its refusal (403), counts as an
 * entry with the holder inside, and is listed in the conflicts report as a duplicate whose `reason` is
 * the refusal (`null` for an `already_used` duplicate); a `checkin.conflict` webhook says the same.
 */

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const pg = await postgresAvailability('conflicts of the entry rules on PostgreSQL');
const MINUTE = 60_000;

interface Duplicate {
  scanner_id: string;
  scanner_name: string | null;
  gate_id: string | null;
  scanned_at: string;
  received_at: string;
  admitted_offline: boolean;
  reason: string | null;
}
interface Card {
  tid: string;
  holder_name: string;
  first: Omit<Duplicate, 'admitted_offline' | 'reason'>;
  duplicates: Duplicate[];
}
interface Answer {
  status?: string;
  error?: { code: string; details: Record<string, unknown> };
}

function rulesConflictSuite(
  name: string,
  skip: string | undefined,
  openStore: () => Promise<{ store: Store; drop?: () => Promise<void> }>,
) {
  describe(`offline admissions the entry rules refuse, in the conflicts report (${name})`, () => {
    const it = itUnless(skip);
    let t: TestIssuer;
    let drop: (() => Promise<void>) | undefined;
    let receiver: Receiver;
    // Near the real time (a receiver checks `webhook-timestamp` against its own clock), on a whole minute.
    const base = Math.floor(Date.now() / MINUTE) * MINUTE - MINUTE;
    const stored = (minutes: number) => new Date(base + minutes * MINUTE).toISOString();
    const wire = (minutes: number) => stored(minutes).replace('.000Z', 'Z');
    before(async () => {
      if (skip !== undefined) return;
      const opened = await openStore();
      drop = opened.drop;
      t = await testIssuer({
        store: opened.store,
        clock: new FixedClock(stored(0)),
        env: { WEBHOOK_ALLOW_PRIVATE: 'true' },
      });
      receiver = await Receiver.start();
    });
    after(async () => {
      await t?.close();
      await drop?.();
      await receiver?.close();
    });

    /** An event of tomorrow, two scanners (north and south), a webhook for its conflicts, and its tickets. */
    async function event() {
      t.clock.set(stored(0));
      const { eid } = await adminCall<{ eid: string }>(t.app, 'POST', '/admin/v1/events', {
        name: 'Harbour Lights',
        event_date: stored(24 * 60),
      });
      const scanner = async () => {
        const scannerId = randomUUID();
        return { scannerId, ...(await enrollScanner(t.app, eid, scannerId)) };
      };
      const north = await scanner();
      const south = await scanner();
      const { secret } = await adminCall<{ secret: string }>(t.app, 'POST', '/admin/v1/webhooks', {
        url: receiver.url,
        event_types: ['checkin.conflict'],
        eid,
      });
      const ticket = async (holder: string, extra: Record<string, unknown> = {}) =>
        (
          await adminCall<{ tid: string }>(t.app, 'POST', `/admin/v1/events/${eid}/tickets`, {
            holder_name: holder,
            ticket_type: 'GA',
            ...extra,
          })
        ).tid;
      const body = (who: { scannerId: string }, tid: string, minutes: number, extra: Record<string, unknown> = {}) => ({
        tid,
        eid,
        scanned_at: stored(minutes),
        scanner_id: who.scannerId,
        idempotency_key: randomUUID(),
        ...extra,
      });
      const send = async (who: { apiKey: string }, payload: object) => {
        const res = await postCheckIn(t.app, who.apiKey, payload);
        return { status: res.statusCode, body: res.json() as Answer };
      };
      const status = async (tid: string) =>
        (
          await t.app.inject({
            method: 'GET',
            url: `/api/v1/tickets/${tid}/status`,
            headers: { authorization: `Bearer ${north.apiKey}` },
          })
        ).json() as { inside: boolean; entries: number; status: string };
      const report = () =>
        adminCall<{ conflicts: Card[]; has_more: boolean }>(t.app, 'GET', `/admin/v1/events/${eid}/conflicts`);
      const counted = async () =>
        (await adminCall<{ counters: { conflicts: number } }>(t.app, 'GET', `/admin/v1/events/${eid}`)).counters
          .conflicts;
      /** The `checkin.conflict` messages of a ticket, once `count` came, checked with the endpoint's secret. */
      const messages = async (tid: string, count: number) => {
        const mine = (r: Parameters<typeof verify>[1]) => {
          try {
            return verify(secret, r).data.tid === tid;
          } catch {
            return false;
          }
        };
        const found = await receiver.waitFor(mine, count);
        return found.map((r) => verify(secret, r).data as Record<string, Record<string, unknown>>);
      };
      return { eid, north, south, ticket, body, send, status, report, counted, messages };
    }

    const refused = (r: { status: number; body: Answer }, reason: string) => {
      assert.equal(r.status, 403, JSON.stringify(r.body));
      assert.equal(r.body.error?.code, 'FORBIDDEN');
      assert.equal(r.body.error?.details.reason, reason);
    };
    const named = (scannerId: string, scanned: number, received: number) => ({
      scanner_id: scannerId,
      scanner_name: 'Gate A iPad',
      gate_id: null,
      scanned_at: wire(scanned),
      received_at: wire(received),
    });
    /** A webhook's scan, its times as instants (the message keeps the stored form). */
    const instants = (scan: Record<string, unknown>) => ({
      ...scan,
      scanned_at: Date.parse(scan.scanned_at as string),
      received_at: Date.parse(scan.received_at as string),
    });

    it('an admission before valid_from: 403 not_valid_now, inside, listed as its own first with its reason, counted once; a replay adds nothing; a later double entry joins its card with reason null', async () => {
      const e = await event();
      const tid = await e.ticket('Ada Lovelace', { valid_from: stored(2) });
      // North let Ada in offline ten minutes before her ticket was valid; it syncs now.
      const upload = e.body(e.north, tid, -10, { admitted_offline: true });
      const first = await e.send(e.north, upload);
      refused(first, 'not_valid_now');
      const status = await e.status(tid);
      assert.equal(status.inside, true, 'she did go in');
      assert.equal(status.entries, 1);
      const own = named(e.north.scannerId, -10, 0);
      const card: Card = {
        tid,
        holder_name: 'Ada Lovelace',
        first: own,
        duplicates: [{ ...own, admitted_offline: true, reason: 'not_valid_now' }],
      };
      assert.deepEqual((await e.report()).conflicts, [card], 'no entry before it: the admission is its own first');
      assert.equal(await e.counted(), 1);

      // The same upload again: the same answer, nothing more in the report or the counter.
      const again = await e.send(e.north, upload);
      assert.deepEqual(again, first);
      assert.deepEqual((await e.report()).conflicts, [card]);
      assert.equal(await e.counted(), 1);

      // South, offline too, let her in again once her ticket was valid: an already_used duplicate.
      t.clock.set(stored(3));
      const south = await e.send(e.south, e.body(e.south, tid, 2.5, { admitted_offline: true }));
      assert.equal(south.status, 200);
      assert.equal(south.body.status, 'already_used');
      assert.deepEqual((await e.report()).conflicts, [
        {
          ...card,
          duplicates: [
            ...card.duplicates,
            { ...named(e.south.scannerId, 2.5, 3), admitted_offline: true, reason: null },
          ],
        },
      ]);
      assert.equal(await e.counted(), 1, 'one ticket');

      // One message per duplicate (none for the replay), each naming the admission as first.
      const [refusal, double] = await e.messages(tid, 2);
      const firstScan = {
        scanner_id: e.north.scannerId,
        gate_id: null,
        scanned_at: base - 10 * MINUTE,
        received_at: base,
      };
      assert.deepEqual(instants(refusal!.first!), firstScan);
      assert.deepEqual(instants(refusal!.duplicate!), {
        ...firstScan,
        admitted_offline: true,
        reason: 'not_valid_now',
      });
      assert.deepEqual(instants(double!.first!), firstScan);
      assert.deepEqual(instants(double!.duplicate!), {
        scanner_id: e.south.scannerId,
        gate_id: null,
        scanned_at: base + 2.5 * MINUTE,
        received_at: base + 3 * MINUTE,
        admitted_offline: true,
        reason: null,
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal((await e.messages(tid, 2)).length, 2, 'the replay sent nothing');
    });

    it('an already_used duplicate of a valid check-in keeps reason null; a refusal without admitted_offline is no conflict', async () => {
      const e = await event();
      const grace = await e.ticket('Grace Hopper');
      const early = await e.ticket('Alan Turing', { valid_from: stored(2) });
      assert.equal((await e.send(e.north, e.body(e.north, grace, -5))).body.status, 'valid');
      const double = await e.send(e.south, e.body(e.south, grace, -4, { admitted_offline: true }));
      assert.equal(double.body.status, 'already_used');
      // Refused online (no offline verdict), and refused with the holder turned away: nobody went in.
      refused(await e.send(e.north, e.body(e.north, early, -1)), 'not_valid_now');
      refused(await e.send(e.south, e.body(e.south, early, -1, { admitted_offline: false })), 'not_valid_now');
      assert.equal((await e.status(early)).inside, false);
      assert.deepEqual((await e.report()).conflicts, [
        {
          tid: grace,
          holder_name: 'Grace Hopper',
          first: named(e.north.scannerId, -5, 0),
          duplicates: [{ ...named(e.south.scannerId, -4, 0), admitted_offline: true, reason: null }],
        },
      ]);
      assert.equal(await e.counted(), 1);
      const [message] = await e.messages(grace, 1);
      assert.equal(message!.duplicate!.reason, null);
    });

    it('an admission over max_entries is listed against the entry before it, with reason entry_limit_reached', async () => {
      const e = await event();
      const declared = await t.app.inject({
        method: 'PUT',
        url: `/admin/v1/events/${e.eid}/ticket-types/Single`,
        headers: admin,
        payload: { max_entries: 1, reentry: 'after_exit' },
      });
      assert.equal(declared.statusCode, 200, declared.body);
      const tid = await e.ticket('Ada Lovelace', { ticket_type: 'Single' });
      assert.equal((await e.send(e.north, e.body(e.north, tid, -20))).body.status, 'valid');
      const exit = await t.app.inject({
        method: 'POST',
        url: '/api/v1/tickets/check-out',
        headers: { authorization: `Bearer ${e.north.apiKey}` },
        payload: e.body(e.north, tid, -15),
      });
      assert.equal(exit.json().status, 'checked_out');
      refused(await e.send(e.south, e.body(e.south, tid, -10, { admitted_offline: true })), 'entry_limit_reached');
      const status = await e.status(tid);
      assert.equal(status.inside, true);
      assert.equal(status.entries, 2);
      assert.deepEqual((await e.report()).conflicts, [
        {
          tid,
          holder_name: 'Ada Lovelace',
          first: named(e.north.scannerId, -20, 0),
          duplicates: [{ ...named(e.south.scannerId, -10, 0), admitted_offline: true, reason: 'entry_limit_reached' }],
        },
      ]);
      assert.equal(await e.counted(), 1);
      const [message] = await e.messages(tid, 1);
      assert.equal(message!.first!.scanner_id, e.north.scannerId);
      assert.equal(message!.duplicate!.reason, 'entry_limit_reached');
    });

    it('one upload for a queue (POST /api/v1/tickets/scans): each refused admission listed once, also when the upload is sent again', async () => {
      const e = await event();
      const ada = await e.ticket('Ada Lovelace', { valid_from: stored(2) });
      const grace = await e.ticket('Grace Hopper', { valid_from: stored(2) });
      const alan = await e.ticket('Alan Turing');
      const scans = [
        { action: 'check_in', ...e.body(e.north, ada, -10, { admitted_offline: true }) },
        { action: 'check_in', ...e.body(e.north, grace, -9, { admitted_offline: true }) },
        { action: 'check_in', ...e.body(e.north, alan, -8, { admitted_offline: true }) },
      ];
      const batches = () => (t.store instanceof PostgresStore ? t.store.committedBatches : 0);
      const before = batches();
      const upload = async () => {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/v1/tickets/scans',
          headers: { authorization: `Bearer ${e.north.apiKey}` },
          payload: { scans },
        });
        assert.equal(res.statusCode, 200, res.body);
        return res.json().results as { status_code: number; body: Answer }[];
      };
      const results = await upload();
      assert.deepEqual(
        results.map((r) => [r.status_code, r.body.error?.details.reason ?? r.body.status]),
        [
          [403, 'not_valid_now'],
          [403, 'not_valid_now'],
          [200, 'valid'],
        ],
      );
      if (t.store instanceof PostgresStore) assert.ok(batches() > before, 'applied by the batched path');
      const own = (scanned: number) => named(e.north.scannerId, scanned, 0);
      const expected = [
        {
          tid: ada,
          holder_name: 'Ada Lovelace',
          first: own(-10),
          duplicates: [{ ...own(-10), admitted_offline: true, reason: 'not_valid_now' }],
        },
        {
          tid: grace,
          holder_name: 'Grace Hopper',
          first: own(-9),
          duplicates: [{ ...own(-9), admitted_offline: true, reason: 'not_valid_now' }],
        },
      ];
      assert.deepEqual((await e.report()).conflicts, expected);
      assert.equal(await e.counted(), 2);
      assert.deepEqual((await e.status(ada)).inside, true);

      assert.deepEqual(await upload(), results, 'the same answers again');
      assert.deepEqual((await e.report()).conflicts, expected);
      assert.equal(await e.counted(), 2);
      assert.equal((await e.messages(ada, 1)).length, 1);
      assert.equal((await e.messages(grace, 1))[0]!.duplicate!.reason, 'not_valid_now');
    });
  });
}

rulesConflictSuite('SQLite', undefined, async () => ({ store: new SqliteStore(':memory:') }));
rulesConflictSuite('PostgreSQL', pg.skip, async () => {
  if (pg.problem !== null) assert.fail(`PostgreSQL is required (REQUIRE_SERVICES=1): ${pg.problem}`);
  const database = await freshDatabase();
  return { store: await PostgresStore.open(database.url), drop: database.drop };
});
