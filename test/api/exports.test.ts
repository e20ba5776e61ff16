import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Papa from 'papaparse';
import { eachBackend } from '../helpers/backends.ts';
import { ADMIN_TOKEN, adminCall, enrollScanner, postCheckIn, type TestIssuer } from '../helpers/app.ts';
import type { Store } from '../../src/store/store.ts';

/**
 * The CSV exports (CONTRACT.md, "After the event: reports and exports"): the contract's columns, UTF-8
 * with a header row, RFC 4180 quoting, no formula injection, streamed a page at a time; a store that
 * fails before the first byte is a 503, one that fails later ends the download and nothing else.
 */

const TICKET_HEADER = 'tid,holder_name,email,ticket_type,order_ref,status,first_entry_at,last_exit_at,entries';
const SCAN_HEADER =
  'scan_id,scanned_at,received_at,tid,holder_name,outcome,reason,gate_id,scanner_id,scanner_name,admitted_offline,manual,replay,annulled_at';

/** What the tests do to the store's export pages: rows per page, and a hook run before each page is read. */
const pages = {
  size: 100,
  read: 0,
  before: null as ((page: number) => Promise<void>) | null,
};

/** The store, with its tickets export read `pages.size` rows at a time, after `pages.before`. */
function pagedStore(inner: Store): Store {
  const reports = new Proxy(inner.reports, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (property !== 'exportTickets' || typeof value !== 'function') return value;
      return async (eid: string, _limit: number, after: string | null) => {
        pages.read += 1;
        await pages.before?.(pages.read);
        return target.exportTickets(eid, pages.size, after);
      };
    },
  });
  return new Proxy(inner, {
    get: (target, property, receiver) =>
      property === 'reports' ? reports : (Reflect.get(target, property, receiver) as unknown),
  });
}

/** The issuer's address on a real port (listening from the first call on). */
async function addressOf(t: TestIssuer): Promise<string> {
  if (!t.app.server.listening) await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

const parse = (text: string): string[][] => Papa.parse<string[]>(text, { skipEmptyLines: true }).data;
const download = (t: TestIssuer, eid: string, file: string, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'GET',
    url: `/admin/v1/events/${eid}/export/${file}`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...headers },
  });

/** An event with tickets whose names try every quoting rule, and an entry, an exit, an annulled entry, a revocation. */
async function night(t: TestIssuer) {
  const { app, clock } = t;
  const { eid } = await adminCall<{ eid: string }>(app, 'POST', '/admin/v1/events', {
    name: 'Export Night',
    event_date: '2026-06-01T18:00:00Z',
  });
  const issue = async (holder_name: string, ticket_type: string, email?: string) =>
    (
      await adminCall<{ tid: string }>(app, 'POST', `/admin/v1/events/${eid}/tickets`, {
        holder_name,
        ticket_type,
        ...(email ? { email } : {}),
      })
    ).tid;
  const zoe = await issue('Zoë Łukasiewicz 李雷', 'GA', 'zoe@example.org');
  const formula = await issue('=HYPERLINK("http://evil.test","click")', 'VIP');
  const comma = await issue('Smith, John "JJ"', 'GA');
  const at = await issue('@SUM(1+1)', 'GA');
  const plus = await issue('+1 555', '-VIP');
  const scannerId = randomUUID();
  const north = await enrollScanner(app, eid, scannerId, 'north', { key_expires_at: '2026-06-04T02:00:00Z' });
  const body = (tid: string, scanned_at: string) => {
    clock.set(scanned_at);
    return { tid, eid, scanned_at, scanner_id: scannerId, idempotency_key: randomUUID() };
  };
  assert.equal((await postCheckIn(app, north.apiKey, body(zoe, '2026-06-01T18:05:00.000Z'))).json().status, 'valid');
  const out = await app.inject({
    method: 'POST',
    url: '/api/v1/tickets/check-out',
    headers: { authorization: `Bearer ${north.apiKey}` },
    payload: body(zoe, '2026-06-01T19:30:00.000Z'),
  });
  assert.equal(out.json().status, 'checked_out');
  const undone = body(at, '2026-06-01T19:40:00.000Z');
  assert.equal((await postCheckIn(app, north.apiKey, undone)).json().status, 'valid');
  const annul = await app.inject({
    method: 'POST',
    url: '/api/v1/tickets/check-in/annul',
    headers: { authorization: `Bearer ${north.apiKey}` },
    payload: {
      eid,
      scanner_id: scannerId,
      idempotency_key: undone.idempotency_key,
      annulled_at: '2026-06-01T19:40:20.000Z',
    },
  });
  assert.equal(annul.statusCode, 200, annul.body);
  await adminCall(app, 'POST', `/admin/v1/tickets/${comma}/revoke`, { reason: 'refund' });
  return { eid, zoe, formula, comma, at, plus, north, scannerId };
}

await eachBackend(
  'the CSV exports',
  ({ it, issuer }) => {
    it("tickets.csv: the contract's columns, one row per ticket, quoted, formulas neutralised, UTF-8 names", async () => {
      const t = issuer();
      pages.before = null;
      const n = await night(t);
      const res = await download(t, n.eid, 'tickets.csv');
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
      assert.equal(res.headers['content-disposition'], `attachment; filename="${n.eid}-tickets.csv"`);
      const text = res.rawPayload.toString('utf8');
      assert.equal(text.split('\r\n')[0], TICKET_HEADER);
      // A formula's cell begins with a quote mark, and its own quotes are doubled inside a quoted cell.
      assert.ok(text.includes(`,"'=HYPERLINK(""http://evil.test"",""click"")",`), text);
      assert.ok(text.includes(`,"Smith, John ""JJ""",`), text);
      const rows = new Map(
        parse(text)
          .slice(1)
          .map((row) => [row[0], row]),
      );
      assert.equal(rows.size, 5);
      assert.deepEqual(rows.get(n.zoe), [
        n.zoe,
        'Zoë Łukasiewicz 李雷',
        'zoe@example.org',
        'GA',
        '',
        'checked_in',
        '2026-06-01T18:05:00Z',
        '2026-06-01T19:30:00Z',
        '1',
      ]);
      assert.deepEqual(rows.get(n.formula), [
        n.formula,
        `'=HYPERLINK("http://evil.test","click")`,
        '',
        'VIP',
        '',
        'valid',
        '',
        '',
        '0',
      ]);
      assert.deepEqual(rows.get(n.comma), [n.comma, 'Smith, John "JJ"', '', 'GA', '', 'revoked', '', '', '0']);
      // Its only entry was annulled: unused again, no entry counted.
      assert.deepEqual(rows.get(n.at), [n.at, `'@SUM(1+1)`, '', 'GA', '', 'valid', '', '', '0']);
      assert.deepEqual(rows.get(n.plus), [n.plus, `'+1 555`, '', `'-VIP`, '', 'valid', '', '', '0']);
      assert.deepEqual([...rows.keys()], [...rows.keys()].sort(), 'in tid order');
    });

    it('scans.csv: the scan log, a row per line, exits and annulled entries included', async () => {
      const t = issuer();
      const n = await night(t);
      const res = await download(t, n.eid, 'scans.csv');
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-disposition'], `attachment; filename="${n.eid}-scans.csv"`);
      const [header, ...rows] = parse(res.rawPayload.toString('utf8'));
      assert.equal(header!.join(','), SCAN_HEADER);
      const scanner = 'Gate A iPad';
      assert.deepEqual(
        rows.map((r) => [r[1], r[3], r[4], r[5], r[7], r[8], r[9], r[10], r[11], r[12], r[13]]),
        [
          [
            '2026-06-01T18:05:00Z',
            n.zoe,
            'Zoë Łukasiewicz 李雷',
            'valid',
            'north',
            n.scannerId,
            scanner,
            'false',
            'false',
            'false',
            '',
          ],
          [
            '2026-06-01T19:30:00Z',
            n.zoe,
            'Zoë Łukasiewicz 李雷',
            'checked_out',
            'north',
            n.scannerId,
            scanner,
            'false',
            'false',
            'false',
            '',
          ],
          [
            '2026-06-01T19:40:00Z',
            n.at,
            `'@SUM(1+1)`,
            'valid',
            'north',
            n.scannerId,
            scanner,
            'false',
            'false',
            'false',
            '2026-06-01T19:40:20Z',
          ],
        ],
      );
    });

    it('an export of many tickets streams: the first page arrives while the next is still being read', async () => {
      const t = issuer();
      const { eid } = await adminCall<{ eid: string }>(t.app, 'POST', '/admin/v1/events', {
        name: 'Big Night',
        event_date: '2026-06-01T18:00:00Z',
      });
      const tickets = Array.from({ length: 250 }, (_, i) => ({ holder_name: `Guest ${i}`, ticket_type: 'GA' }));
      await adminCall(t.app, 'POST', `/admin/v1/events/${eid}/tickets`, { tickets });
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      pages.read = 0;
      // The second page is held until the client has seen the first.
      pages.before = (page) => (page === 2 ? held : Promise.resolve());
      const address = await addressOf(t);
      const body = await new Promise<string>((resolve, reject) => {
        const req = http.get(
          `${address}/admin/v1/events/${eid}/export/tickets.csv`,
          { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              if (text === '') {
                assert.equal(pages.read, 2, 'the second page is being read, not the third');
                assert.equal(chunk.split('\r\n')[0], TICKET_HEADER);
                assert.equal(chunk.split('\r\n').filter(Boolean).length, 101, 'the header and the first page');
                release();
              }
              text += chunk;
            });
            res.on('end', () => resolve(text));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
      });
      pages.before = null;
      const rows = parse(body).slice(1);
      assert.equal(rows.length, 250);
      assert.equal(new Set(rows.map((r) => r[0])).size, 250);
      assert.equal(pages.read, 3);
    });

    it('a store that fails before the first byte: 503 with Retry-After; after it: the download ends, the issuer goes on', async () => {
      const t = issuer();
      const n = await night(t);
      const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      pages.size = 2;
      pages.read = 0;
      pages.before = () => Promise.reject(down);
      const before = await download(t, n.eid, 'tickets.csv');
      assert.equal(before.statusCode, 503);
      assert.ok(Number(before.headers['retry-after']) >= 1);
      assert.equal(before.json().error.code, 'UNAVAILABLE');
      pages.read = 0;
      pages.before = (page) => (page === 2 ? Promise.reject(down) : Promise.resolve());
      const address = await addressOf(t);
      const ended = await new Promise<{ text: string; complete: boolean }>((resolve) => {
        http
          .get(
            `${address}/admin/v1/events/${n.eid}/export/tickets.csv`,
            { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
            (res) => {
              let text = '';
              res.setEncoding('utf8');
              res.on('data', (chunk: string) => (text += chunk));
              res.on('close', () => resolve({ text, complete: res.complete }));
            },
          )
          .on('error', () => resolve({ text: '', complete: false }));
      });
      assert.equal(ended.complete, false, 'the download ends early, not as if it were whole');
      assert.equal(ended.text.split('\r\n')[0], TICKET_HEADER);
      pages.before = null;
      pages.size = 100;
      assert.equal((await download(t, n.eid, 'tickets.csv')).statusCode, 200);
    });

    it("a scanner's key is no admin credential (401); an unknown event is 404", async () => {
      const t = issuer();
      const n = await night(t);
      for (const file of ['tickets.csv', 'scans.csv']) {
        const res = await download(t, n.eid, file, { authorization: `Bearer ${n.north.apiKey}` });
        assert.equal(res.statusCode, 401);
        const unknown = await download(t, 'evt_01J00000000000000000000000', file);
        assert.equal(unknown.statusCode, 404);
        assert.equal(unknown.json().error.code, 'NOT_FOUND');
      }
    });
  },
  { wrapStore: pagedStore },
);
