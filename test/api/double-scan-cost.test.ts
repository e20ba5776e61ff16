import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe } from 'node:test';
import {
  adminCall,
  checkInBody,
  enrollScanner,
  postCheckIn,
  scenario,
  type Scenario,
  T0,
  testIssuer,
  type TestIssuer,
} from '../helpers/app.ts';
import { itUnless } from '../helpers/services.ts';
import { postgres, sqlite } from './double-scan-backends.ts';

/**
 * A double scan writes its `checkin.conflict` messages in its own transaction (inside the group
 * commit on either store). Which scans it reads must not grow with the event's scan log: the scans it
 * just logged are found by their idempotency key (`scans_by_key`), never among every `already_used`
 * scan of the event. Proven on each store by the plans of the very statements the double scan ran
 * that read them (the fan-out, and any other that picks them by key), after a log of LOG_SIZE scans,
 * and by the messages it wrote.
 */
const LOG_SIZE = 20_000;
const MINUTE = 60_000;
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * MINUTE).toISOString();

for (const backend of [sqlite, postgres]) {
  describe(`a double scan's conflict messages cost the same at any scan-log size (${backend.name})`, () => {
    const it = itUnless(backend.skip);
    let t: TestIssuer;
    let drop: (() => Promise<void>) | undefined;
    let north: Scenario;
    let south: Scenario;
    before(async () => {
      if (backend.skip !== undefined) return;
      const opened = await backend.open();
      drop = opened.drop;
      t = await testIssuer({ store: opened.store, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
      north = await scenario(t.app, { gateId: 'north' });
      const scannerId = randomUUID();
      south = { ...north, scannerId, ...(await enrollScanner(t.app, north.eid, scannerId, 'south')) };
      await adminCall(t.app, 'POST', '/admin/v1/webhooks', {
        url: 'http://127.0.0.1:9/hooks',
        event_types: ['checkin.conflict'],
        eid: north.eid,
      });
      // A long scan log of other tickets: each entered once and scanned again by another gate
      // offline, the already_used scans the fan-out used to read one by one.
      const columns =
        'eid, tid, api_key_id, scanner_id, gate_id, idempotency_key, scanned_at, received_at, outcome, reason, replay, admitted_offline, turned_away_offline';
      const values = (n: string, bool: (b: boolean) => string) =>
        `'${north.eid}', 'seed-' || (${n} / 2), '${south.apiKeyId}', '${south.scannerId}', 'south', 'seed-key-' || ${n},
         '${at(-60)}', '${at(-30)}', CASE WHEN ${n} % 2 = 0 THEN 'valid' ELSE 'already_used' END, NULL,
         ${bool(false)}, CASE WHEN ${n} % 2 = 0 THEN ${bool(false)} ELSE ${bool(true)} END, ${bool(false)}`;
      if (backend === sqlite) {
        await backend.exec(
          t.store,
          `WITH RECURSIVE series(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM series WHERE n < ${LOG_SIZE})
           INSERT INTO scans (${columns}) SELECT ${values('n', (b) => (b ? '1' : '0'))} FROM series`,
        );
      } else {
        // Each at the event's next scan-log position, as the store writes them.
        await backend.exec(
          t.store,
          `INSERT INTO scans (${columns}, log_position)
           SELECT ${values('n', (b) => (b ? 'TRUE' : 'FALSE'))}, n FROM generate_series(1, ${LOG_SIZE}) n;
           INSERT INTO change_counters (eid, last_position, last_log_position) VALUES ('${north.eid}', 0, ${LOG_SIZE})`,
        );
        // The statistics a production table has: the planner then knows how long the log is.
        await backend.exec(t.store, 'ANALYZE scans');
      }
    });
    after(async () => {
      await t?.close();
      await drop?.();
    });

    /** Every statement of the double scans that read the scans they logged read them by key. */
    const readByKey = async () => {
      const paths = await backend.loggedScanPaths(t.store);
      assert.ok(paths.length > 0, 'the double scan ran the conflict fan-out');
      for (const path of paths) assert.match(path, /scans_by_key/);
    };

    const conflictMessages = () =>
      backend.count(
        t.store,
        `SELECT COUNT(*) AS count FROM webhook_messages WHERE type = 'checkin.conflict' AND data LIKE '%${north.tid}%'`,
      );

    it('an offline double entry from another gate: one conflict message, the scans it logged read by key', async () => {
      assert.equal((await postCheckIn(t.app, north.apiKey, checkInBody(north, at(-10)))).json().status, 'valid');
      const duplicate = checkInBody(south, at(-9), { admitted_offline: true });
      assert.equal((await postCheckIn(t.app, south.apiKey, duplicate)).json().status, 'already_used');
      assert.equal(await conflictMessages(), 1);
      await readByKey();
    });

    it("a gate's own repeat is no conflict: no message, and still read by key", async () => {
      assert.equal((await postCheckIn(t.app, north.apiKey, checkInBody(north, at(-1)))).json().status, 'already_used');
      assert.equal(await conflictMessages(), 1);
      await readByKey();
    });

    it("an annul by a scanner's key finds the entry's scan and its entry by the ticket, never in the whole log", async () => {
      // Neither the index of scans by key nor the entries keep a first entry's key: its remembered answer
      // names the ticket, by which the scan and the entry are read.
      const issued = await adminCall<{ tickets: { tid: string }[] }>(
        t.app,
        'POST',
        `/admin/v1/events/${north.eid}/tickets`,
        {
          tickets: [{ holder_name: 'Annulled Entry', ticket_type: 'GA' }],
        },
      );
      const entry: Record<string, unknown> = { ...checkInBody(north, at(-5)), tid: issued.tickets[0]!.tid };
      assert.equal((await postCheckIn(t.app, north.apiKey, entry)).json().status, 'valid');
      const annul = await t.app.inject({
        method: 'POST',
        url: '/api/v1/tickets/check-in/annul',
        headers: { authorization: `Bearer ${north.apiKey}` },
        payload: {
          eid: north.eid,
          scanner_id: north.scannerId,
          idempotency_key: entry.idempotency_key,
          annulled_at: at(0),
        },
      });
      assert.equal(annul.json().status, 'annulled', annul.body);
      assert.equal(
        await backend.count(
          t.store,
          `SELECT COUNT(*) AS count FROM scans WHERE idempotency_key = '${String(entry.idempotency_key)}' AND annulled_at IS NOT NULL`,
        ),
        1,
        'its line in the scan log is marked',
      );
      const paths = await backend.annulPaths(t.store);
      const all = paths.map(({ table, path }) => `${table}: ${path}`).join(' | ');
      // Each table by the index its key needs: the entries have none by key, and are read by their ticket.
      const indexes: Record<string, RegExp> = {
        scans: /scans_by_key|scans_by_outcome/,
        entries: /entries_by_ticket/,
        idempotency_keys: /sqlite_autoindex_idempotency_keys_1|idempotency_keys_pkey/,
      };
      assert.deepEqual(new Set(paths.map(({ table }) => table)), new Set(Object.keys(indexes)), all);
      assert.ok(paths.filter(({ table }) => table === 'scans').length >= 3, all);
      for (const { table, path } of paths) {
        assert.match(path, indexes[table]!, all);
        assert.doesNotMatch(path, /Seq Scan|scans_by_event|^SCAN /, all);
      }
    });
  });
}
