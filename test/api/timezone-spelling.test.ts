import assert from 'node:assert/strict';
import type pg from 'pg';
import { calendarsKept } from '../../packages/protocol/src/event-days.ts';
import { formattersKept } from '../../packages/protocol/src/zone-clock.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import type { Store } from '../../src/store/store.ts';
import { ADMIN_TOKEN } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const ZONE = 'America/Argentina/Buenos_Aires';

/** `name` with each letter in a random case, as someone probing the zone cache would send it. */
const anyCase = (name: string): string =>
  [...name].map((c) => (Math.random() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join('');

/** Runs one statement on the store's own database (`$1`: the eid), for what the API cannot show. */
async function onRow(store: Store, sql: string, eid: string): Promise<Record<string, unknown> | undefined> {
  if (store instanceof PostgresStore) {
    const pool = (store as unknown as { pool: pg.Pool }).pool;
    return (await pool.query(sql, [eid])).rows[0];
  }
  const db = (store as unknown as { ctx: { db: import('better-sqlite3').Database } }).ctx.db;
  const statement = db.prepare(sql.replace('$1', '?'));
  return statement.reader ? (statement.get(eid) as Record<string, unknown>) : void statement.run(eid);
}

const storedZone = async (store: Store, eid: string) =>
  (await onRow(store, 'SELECT timezone FROM events WHERE eid = $1', eid))!.timezone;

await eachBackend('an event’s time zone is stored as the zone database spells it', ({ backend, it, issuer }) => {
  const create = (timezone: string) =>
    issuer().app.inject({
      method: 'POST',
      url: '/admin/v1/events',
      headers: admin,
      payload: { name: 'Tango Night', event_date: '2026-07-01T22:00:00Z', timezone },
    });
  const patch = (eid: string, timezone: string) =>
    issuer().app.inject({ method: 'PATCH', url: `/admin/v1/events/${eid}`, headers: admin, payload: { timezone } });

  it('a zone typed in any case is stored and answered in the database’s spelling, a link as that link', async () => {
    const created = await create('america/argentina/buenos_aires');
    assert.equal(created.statusCode, 201, created.body);
    const eid = created.json().eid as string;
    assert.equal(created.json().timezone, ZONE);
    assert.equal(await storedZone(issuer().store, eid), ZONE);
    const patched = await patch(eid, 'aMeRICa/ARGENTINA/buenos_AIRES');
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().timezone, ZONE);
    assert.equal(await storedZone(issuer().store, eid), ZONE);
    assert.equal((await patch(eid, 'etc/gmt+1')).json().timezone, 'Etc/GMT+1');
    assert.equal(await storedZone(issuer().store, eid), 'Etc/GMT+1');
  });

  it('a name outside the zone database (an alias only the platform knows) is refused, naming timezone', async () => {
    const eid = (await create('UTC')).json().eid as string;
    for (const alias of ['PST', 'BST', 'SystemV/EST5', 'US/Pacific-New']) {
      const refused = await patch(eid, alias);
      assert.equal(refused.statusCode, 400, `${alias}: ${refused.body}`);
      assert.equal(refused.json().error.code, 'INVALID_REQUEST');
      assert.deepEqual(
        refused.json().error.details.fields.map((f: { field: string }) => f.field),
        ['timezone'],
      );
    }
    assert.equal(await storedZone(issuer().store, eid), 'UTC');
  });

  it('a zone an older release kept in another case is answered as the database spells it', async () => {
    const eid = (await create(ZONE)).json().eid as string;
    await onRow(issuer().store, "UPDATE events SET timezone = 'aMeRICa/argentina/BUENOS_aires' WHERE eid = $1", eid);
    const read = await issuer().app.inject({ url: `/admin/v1/events/${eid}`, headers: admin });
    assert.equal(read.json().timezone, ZONE);
  });

  // The caches belong to the process, whatever the store: the full 10,000 on SQLite, fewer on PostgreSQL,
  // whose PATCHes are slower and go through the same code.
  const count = backend === 'SQLite' ? 10_000 : 1_000;
  it(`${count} PATCHes with case variants of one zone keep one formatter and one calendar for it`, async () => {
    const eid = (await create(ZONE)).json().eid as string;
    const [formatters, calendars] = [formattersKept(), calendarsKept()];
    const spellings = new Set<string>();
    const patchOne = async () => {
      const spelling = anyCase(ZONE);
      spellings.add(spelling);
      const res = await patch(eid, spelling);
      if (res.statusCode !== 200 || res.json().timezone !== ZONE) assert.fail(`${spelling}: ${res.body}`);
    };
    for (let sent = 0; sent < count; sent += 8) await Promise.all(Array.from({ length: 8 }, patchOne));
    assert.ok(spellings.size > count * 0.9, `${spellings.size} spellings`);
    assert.equal(formattersKept(), formatters, 'formatters kept');
    assert.equal(calendarsKept(), calendars, 'calendars kept');
    assert.equal(await storedZone(issuer().store, eid), ZONE);
  });
});
