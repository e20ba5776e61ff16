import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import pg from 'pg';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import {
  adminCall,
  checkInBody,
  postCheckIn,
  scenario,
  type Scenario,
  T0,
  testIssuer,
  type TestIssuer,
} from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';

interface ScanLog {
  scans: { scan_id: number; tid: string; outcome: string }[];
  /** Always given since the log pages by the feed's rule; null at the end before. */
  next_cursor: string | null;
  has_more: boolean;
}

const scanLog = (t: TestIssuer, eid: string, cursor: string | null, limit = 100) =>
  adminCall<ScanLog>(t.app, 'GET', `/admin/v1/events/${eid}/scans?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);

const MINUTE = 60_000;
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * MINUTE).toISOString();

await eachBackend('the scan log names a cursor even at its end', ({ it, issuer }) => {
  it('an empty log, then a page at the end: next_cursor is given, has_more false; asking again later finds what came', async () => {
    const t = issuer();
    const s = await scenario(t.app);
    const empty = await scanLog(t, s.eid, null);
    assert.deepEqual([empty.scans, empty.has_more, typeof empty.next_cursor], [[], false, 'string']);
    assert.equal((await postCheckIn(t.app, s.apiKey, checkInBody(s, at(-2)))).json().status, 'valid');
    const first = await scanLog(t, s.eid, empty.next_cursor);
    assert.deepEqual([first.scans.map((x) => x.outcome), first.has_more], [['valid'], false]);
    const end = await scanLog(t, s.eid, first.next_cursor);
    assert.deepEqual([end.scans, end.next_cursor, end.has_more], [[], first.next_cursor, false]);
    assert.equal((await postCheckIn(t.app, s.apiKey, checkInBody(s, at(-1)))).json().status, 'already_used');
    const later = await scanLog(t, s.eid, end.next_cursor);
    assert.deepEqual(
      later.scans.map((x) => x.outcome),
      ['already_used'],
    );
    // Pages of one follow each other with has_more until the end.
    const one = await scanLog(t, s.eid, null, 1);
    assert.deepEqual([one.scans.length, one.has_more], [1, true]);
    const two = await scanLog(t, s.eid, one.next_cursor, 1);
    assert.deepEqual([two.scans[0]!.scan_id > one.scans[0]!.scan_id, two.has_more], [true, false]);
  });
});

const pgAvailability = await postgresAvailability('scan log paging on PostgreSQL');

describe('the scan log paged on PostgreSQL never skips a scan that committed late', () => {
  const it = itUnless(pgAvailability.skip);
  let t: TestIssuer;
  /** Watches the database's sessions. */
  let admin: pg.Client;
  /** Holds the row lock that makes one transaction wait (a session of its own: a session inside a
   * transaction reads pg_stat_activity as it was when the transaction began). */
  let holder: pg.Client;
  let drop: (() => Promise<void>) | undefined;
  before(async () => {
    if (pgAvailability.skip !== undefined) return;
    if (pgAvailability.problem !== null) assert.fail(`PostgreSQL is required: ${pgAvailability.problem}`);
    const database = await freshDatabase();
    drop = database.drop;
    t = await testIssuer({ store: await PostgresStore.open(database.url) });
    admin = new pg.Client({ connectionString: database.url });
    holder = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await holder.connect();
  });
  after(async () => {
    await admin?.end();
    await holder?.end();
    await t?.close();
    await drop?.();
  });

  /**
   * Where a pager asks next: the page's `next_cursor`; a pager of a log that gave none at its end
   * (before it always did) kept its last scan's id, or the cursor it had.
   */
  const cursorAfter = (page: ScanLog, had: string | null = null): string | null =>
    page.next_cursor ?? (page.scans.length > 0 ? String(page.scans.at(-1)!.scan_id) : had);

  /** Resolves once a session waits for a lock in a statement that matches `pattern`. */
  async function waitingOn(pattern: RegExp): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const { rows } = await admin.query<{ query: string }>(
        "SELECT query FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
      );
      if (rows.some((row) => pattern.test(row.query))) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.fail(`no session waited on ${pattern}`);
  }

  it('a scan that took a lower scan_id and committed after a higher one is on the next page', async () => {
    const s = await scenario(t.app);
    const { tickets } = await adminCall<{ tickets: { tid: string }[] }>(
      t.app,
      'POST',
      `/admin/v1/events/${s.eid}/tickets`,
      {
        tickets: [{ holder_name: 'Grace Hopper', ticket_type: 'GA' }],
      },
    );
    const other: Scenario = { ...s, tid: tickets[0]!.tid };
    for (const x of [s, other]) {
      assert.equal((await postCheckIn(t.app, x.apiKey, checkInBody(x, at(-5)))).json().status, 'valid');
    }
    const before = await scanLog(t, s.eid, null);
    assert.equal(before.scans.length, 2);

    // Transaction A (an exit, in a check-in batch) logs its scan and waits for the gate's counter row,
    // which a session of the test holds; meanwhile transaction B (a double scan of another ticket) logs
    // a later scan.
    await holder.query('BEGIN');
    await holder.query("SELECT * FROM gate_counts WHERE eid = $1 AND gate_key = '' FOR UPDATE", [s.eid]);
    // (An injected request starts once it is awaited or then'd.)
    const exitA = t.app
      .inject({
        method: 'POST',
        url: '/api/v1/tickets/check-out',
        headers: { authorization: `Bearer ${s.apiKey}` },
        payload: checkInBody(s, at(-1)),
      })
      .then((res) => res);
    // The exit's batch writes in one statement, whose text pg_stat_activity cuts before it names gate_counts.
    await waitingOn(/gate_counts|WITH remembered AS/);
    const doubleB = postCheckIn(t.app, other.apiKey, checkInBody(other, at(-1))).then((res) => res);
    // B either commits now (its scan logged after A's, committed first) or waits for A's to commit.
    await Promise.race([doubleB, new Promise((resolve) => setTimeout(resolve, 500))]);
    const during = await scanLog(t, s.eid, cursorAfter(before));

    await holder.query('COMMIT');
    assert.equal((await exitA).json().status, 'checked_out');
    assert.equal((await doubleB).json().status, 'already_used');
    const afterwards = await scanLog(t, s.eid, cursorAfter(during, cursorAfter(before)));

    const paged = [...before.scans, ...during.scans, ...afterwards.scans].map((x) => x.scan_id);
    const whole = (await scanLog(t, s.eid, null)).scans.map((x) => x.scan_id);
    assert.equal(whole.length, 4);
    assert.deepEqual(
      [...paged].sort((a, b) => a - b),
      [...whole].sort((a, b) => a - b),
      'every scan once',
    );
    assert.equal(afterwards.has_more, false);
  });
});
