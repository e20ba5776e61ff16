import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe } from 'node:test';
import { FixedClock } from '../../src/domain/clock.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { adminCall, enrollScanner, postCheckIn, T0, testIssuer, type TestIssuer } from '../helpers/app.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';

const pg = await postgresAvailability('entry rules on PostgreSQL');

interface Body {
  status?: string;
  ticket?: { entries?: number; attention?: boolean; checkin_texts?: string[]; checked_in_at?: string | null };
  error?: { code: string; details: Record<string, unknown> };
}

/** The same suite on each backend: each rule through the scanner API, in the event's time zone. */
function rulesSuite(
  name: string,
  skip: string | undefined,
  openStore: () => Promise<{ store: Store; drop?: () => Promise<void> }>,
) {
  describe(`entry rules per ticket type through the API (${name})`, () => {
    const it = itUnless(skip);
    let t: TestIssuer;
    let clock: FixedClock;
    let drop: (() => Promise<void>) | undefined;
    before(async () => {
      if (skip !== undefined) return;
      const opened = await openStore();
      drop = opened.drop;
      clock = new FixedClock(T0);
      t = await testIssuer({ store: opened.store, clock });
    });
    after(async () => {
      await t?.close();
      await drop?.();
    });

    /** An event in Berlin (T0 = Monday 1 June 2026, 14:00 there), a scanner, and tickets of `type`. */
    async function event(settings: Record<string, unknown> = {}) {
      clock.set(T0);
      const { eid } = await adminCall<{ eid: string }>(t.app, 'POST', '/admin/v1/events', {
        name: 'Weekend Festival',
        event_date: '2026-06-05T16:00:00Z',
        timezone: 'Europe/Berlin',
        ...settings,
      });
      const scannerId = randomUUID();
      const { apiKey } = await enrollScanner(t.app, eid, scannerId);
      const declare = (label: string, rules: Record<string, unknown>) =>
        adminCall(t.app, 'PUT', `/admin/v1/events/${eid}/ticket-types/${encodeURIComponent(label)}`, rules);
      const ticket = async (type: string, extra: Record<string, unknown> = {}) =>
        (
          await adminCall<{ tid: string; ticket_token: string }>(t.app, 'POST', `/admin/v1/events/${eid}/tickets`, {
            holder_name: 'Ada Lovelace',
            ticket_type: type,
            ...extra,
          })
        ).tid;
      const scan = async (tid: string, extra: Record<string, unknown> = {}) => {
        const res = await postCheckIn(t.app, apiKey, {
          tid,
          eid,
          scanned_at: clock.now().toISOString(),
          scanner_id: scannerId,
          idempotency_key: randomUUID(),
          ...extra,
        });
        return { status: res.statusCode, body: res.json() as Body };
      };
      const exit = async (tid: string) =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/tickets/check-out',
          headers: { authorization: `Bearer ${apiKey}` },
          payload: {
            tid,
            eid,
            scanned_at: clock.now().toISOString(),
            scanner_id: scannerId,
            idempotency_key: randomUUID(),
          },
        });
      const status = async (tid: string) =>
        (
          await t.app.inject({
            method: 'GET',
            url: `/api/v1/tickets/${tid}/status`,
            headers: { authorization: `Bearer ${apiKey}` },
          })
        ).json() as Record<string, unknown>;
      const occupancy = () =>
        adminCall<{ inside: number; gates: { entries: number }[] }>(t.app, 'GET', `/admin/v1/events/${eid}/occupancy`);
      return { eid, apiKey, scannerId, declare, ticket, scan, exit, status, occupancy };
    }

    const refused = (r: { status: number; body: Body }, reason: string) => {
      assert.equal(r.status, 403, JSON.stringify(r.body));
      assert.equal(r.body.error?.code, 'FORBIDDEN');
      assert.equal(r.body.error?.details.reason, reason);
    };

    it('a Saturday ticket is not valid on Monday, then admitted on Saturday; nothing changes on the refusal', async () => {
      const e = await event();
      await e.declare('Saturday', { valid_days: ['2026-06-06'] });
      const tid = await e.ticket('Saturday');
      const monday = await e.scan(tid);
      refused(monday, 'not_valid_now');
      assert.equal(monday.body.error?.details.event_day, '2026-06-01');
      assert.equal((await e.status(tid)).status, 'valid', 'the ticket stays unused');
      assert.equal((await e.status(tid)).entries, 0);
      const log = await adminCall<{ scans: { outcome: string }[] }>(t.app, 'GET', `/admin/v1/events/${e.eid}/scans`);
      assert.deepEqual(
        log.scans.map((s) => s.outcome),
        ['not_valid_now'],
      );
      // Saturday 6 June, 00:30 in Berlin is still Friday 5 June in UTC: the zone decides.
      clock.set('2026-06-05T22:30:00Z');
      const saturday = await e.scan(tid);
      assert.equal(saturday.status, 200);
      assert.equal(saturday.body.status, 'valid');
      assert.equal(saturday.body.ticket?.entries, 1);
    });

    it('hours in the event day: a day starting at 06:00 orders the night last', async () => {
      const e = await event({ day_starts_at: '06:00' });
      await e.declare('Night', { hours: { from: '20:00', until: '02:00' } });
      const tid = await e.ticket('Night');
      refused(await e.scan(tid), 'not_valid_now'); // 14:00
      clock.set('2026-06-01T23:30:00Z'); // 01:30 on Tuesday, Monday's night
      assert.equal((await e.scan(tid)).body.status, 'valid');
    });

    it('valid_from: refused before it, admitted from it', async () => {
      const e = await event();
      const tid = await e.ticket('GA', { valid_from: '2026-06-01T13:00:00Z' });
      refused(await e.scan(tid), 'not_valid_now');
      clock.set('2026-06-01T13:00:00Z');
      assert.equal((await e.scan(tid)).body.status, 'valid');
    });

    it('a wristband (re-entry any) comes in while counted inside up to max_entries, and occupancy counts the holder once', async () => {
      const e = await event();
      await e.declare('Wristband', { reentry: 'any', max_entries: 2 });
      const tid = await e.ticket('Wristband');
      const first = await e.scan(tid);
      assert.equal(first.body.status, 'valid');
      clock.advance(60_000);
      const second = await e.scan(tid);
      assert.equal(second.body.status, 'valid');
      assert.equal(second.body.ticket?.entries, 2);
      const occupancy = await e.occupancy();
      assert.equal(occupancy.inside, 1, 'the holder inside once');
      assert.equal(
        occupancy.gates.reduce((sum, g) => sum + g.entries, 0),
        2,
        'two entries at the gates',
      );
      clock.advance(60_000);
      const third = await e.scan(tid);
      refused(third, 'entry_limit_reached');
      assert.equal(third.body.error?.details.entries, 2);
      assert.equal((await e.status(tid)).entries, 2);
    });

    it('too soon: min_minutes_between_entries from the last entry', async () => {
      const e = await event();
      await e.declare('Day', { reentry: 'any', min_minutes_between_entries: 30 });
      const tid = await e.ticket('Day');
      assert.equal((await e.scan(tid)).body.status, 'valid');
      clock.advance(10 * 60_000);
      const soon = await e.scan(tid);
      refused(soon, 'too_soon');
      assert.equal(soon.body.error?.details.next_entry_at, '2026-06-01T12:30:00Z');
      clock.advance(20 * 60_000);
      assert.equal((await e.scan(tid)).body.status, 'valid');
    });

    it('one entry per event day (re-entry after exit), the day starting at 06:00', async () => {
      const e = await event({ day_starts_at: '06:00' });
      await e.declare('Pass', { reentry: 'after_exit', max_entries_per_day: 1 });
      const tid = await e.ticket('Pass');
      assert.equal((await e.scan(tid)).body.status, 'valid');
      clock.advance(60_000);
      assert.equal((await e.exit(tid)).json().status, 'checked_out');
      clock.set('2026-06-02T02:00:00Z'); // 04:00 on Tuesday: still Monday's day
      refused(await e.scan(tid), 'entry_limit_reached');
      clock.set('2026-06-02T04:00:00Z'); // 06:00 on Tuesday: a new day
      assert.equal((await e.scan(tid)).body.status, 'valid');
    });

    it('the type’s re-entry none outranks the event’s re-entry; an exit is never refused by the rules', async () => {
      const e = await event();
      await adminCall(t.app, 'PATCH', `/admin/v1/events/${e.eid}`, { reentry: true });
      await e.declare('Single', { reentry: 'none', hours: { from: '10:00', until: '15:00' } });
      const tid = await e.ticket('Single');
      assert.equal((await e.scan(tid)).body.status, 'valid');
      clock.set('2026-06-01T14:00:00Z'); // 16:00: outside the hours
      assert.equal((await e.exit(tid)).json().status, 'checked_out');
      clock.set('2026-06-01T12:30:00Z');
      assert.equal((await e.scan(tid)).body.status, 'already_used');
    });

    it('answers and the status carry attention and the texts: the type’s, then the ticket’s', async () => {
      const e = await event();
      await e.declare('VIP', { attention: true, checkin_text: 'Give a wristband' });
      const tid = await e.ticket('VIP', { checkin_text: 'Wheelchair access' });
      const admitted = await e.scan(tid);
      assert.equal(admitted.body.ticket?.attention, true);
      assert.deepEqual(admitted.body.ticket?.checkin_texts, ['Give a wristband', 'Wheelchair access']);
      const status = await e.status(tid);
      assert.equal(status.attention, true);
      assert.deepEqual(status.checkin_texts, ['Give a wristband', 'Wheelchair access']);
      assert.equal(status.entries, 1);
      const again = await e.scan(tid);
      assert.equal(again.body.status, 'already_used');
      assert.equal(again.body.ticket?.entries, 1);
    });

    it('an offline admission the rules refuse keeps its refusal, counts, and has the holder inside', async () => {
      const e = await event();
      await e.declare('Saturday', { valid_days: ['2026-06-06'] });
      const tid = await e.ticket('Saturday');
      const uploaded = await e.scan(tid, { admitted_offline: true });
      refused(uploaded, 'not_valid_now');
      assert.equal(uploaded.body.error?.details.entries, 1);
      const status = await e.status(tid);
      assert.equal(status.inside, true);
      assert.equal(status.status, 'checked_in');
      assert.equal(status.entries, 1);
      assert.equal((await e.occupancy()).inside, 1);
    });

    it('the batch upload answers each scan as the single endpoint does', async () => {
      const e = await event();
      await e.declare('Wristband', { reentry: 'any', max_entries: 1 });
      const tid = await e.ticket('Wristband');
      const scan = () => ({
        action: 'check_in',
        tid,
        eid: e.eid,
        scanned_at: clock.now().toISOString(),
        scanner_id: e.scannerId,
        idempotency_key: randomUUID(),
      });
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/tickets/scans',
        headers: { authorization: `Bearer ${e.apiKey}` },
        payload: { scans: [scan(), scan()] },
      });
      const results = res.json().results as { status_code: number; body: Body }[];
      assert.deepEqual(
        results.map((r) => r.status_code),
        [200, 403],
      );
      assert.equal(results[1]!.body.error?.details.reason, 'entry_limit_reached');
    });
  });
}

rulesSuite('SQLite', undefined, async () => ({ store: new SqliteStore(':memory:') }));
rulesSuite('PostgreSQL', pg.skip, async () => {
  if (pg.problem !== null) assert.fail(`PostgreSQL is required (REQUIRE_SERVICES=1): ${pg.problem}`);
  const database = await freshDatabase();
  return { store: await PostgresStore.open(database.url), drop: database.drop };
});

describe('entries counted exactly under concurrent scans on two PostgreSQL instances', () => {
  const it = itUnless(pg.skip);
  it('max_entries 1 with re-entry any and 50 concurrent scans gives one valid', async () => {
    if (pg.problem !== null) assert.fail(`PostgreSQL is required (REQUIRE_SERVICES=1): ${pg.problem}`);
    const database = await freshDatabase();
    const clock = new FixedClock(T0);
    const a = await testIssuer({ store: await PostgresStore.open(database.url), clock });
    const b = await testIssuer({ store: await PostgresStore.open(database.url), clock });
    try {
      const { eid } = await adminCall<{ eid: string }>(a.app, 'POST', '/admin/v1/events', {
        name: 'Wristbands',
        event_date: '2026-06-05T16:00:00Z',
      });
      await adminCall(a.app, 'PUT', `/admin/v1/events/${eid}/ticket-types/Wristband`, {
        reentry: 'any',
        max_entries: 1,
      });
      const { tid } = await adminCall<{ tid: string }>(a.app, 'POST', `/admin/v1/events/${eid}/tickets`, {
        holder_name: 'Grace Hopper',
        ticket_type: 'Wristband',
      });
      const scanners = await Promise.all(
        [a, b].map(async (issuer) => {
          const scannerId = randomUUID();
          return { issuer, scannerId, ...(await enrollScanner(issuer.app, eid, scannerId)) };
        }),
      );
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => {
          const s = scanners[i % 2]!;
          return postCheckIn(s.issuer.app, s.apiKey, {
            tid,
            eid,
            scanned_at: new Date(Date.parse(T0) - i * 1000).toISOString(),
            scanner_id: s.scannerId,
            idempotency_key: randomUUID(),
          });
        }),
      );
      const statuses = answers.map((r) => r.statusCode);
      assert.equal(statuses.filter((s) => s === 200).length, 1, `one valid: ${statuses.join(',')}`);
      assert.equal(statuses.filter((s) => s === 403).length, 49);
      for (const r of answers.filter((x) => x.statusCode === 403)) {
        assert.equal((r.json() as Body).error?.details.reason, 'entry_limit_reached');
      }
      const occupancy = await adminCall<{ inside: number }>(a.app, 'GET', `/admin/v1/events/${eid}/occupancy`);
      assert.equal(occupancy.inside, 1);
    } finally {
      await a.close();
      await b.close();
      await database.drop();
    }
  });
});
