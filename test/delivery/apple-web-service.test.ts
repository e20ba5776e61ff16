import assert from 'node:assert/strict';
import { after, describe, it as plainIt } from 'node:test';
import { adminCall, scenario, testIssuer } from '../helpers/app.ts';
import { makeAppleFiles, PASS_TYPE_ID } from '../helpers/apple-certs.ts';
import { fetchPass, passAuth } from '../helpers/apple-pass.ts';
import { eachBackend } from '../helpers/backends.ts';

const files = makeAppleFiles();
after(() => files.remove());

const PREFIX = '/wallet/apple/v1';
const registration = (device: string, tid: string, type = PASS_TYPE_ID) =>
  `${PREFIX}/devices/${device}/registrations/${type}/${tid}`;
let devices = 0;
const newDevice = () => `device${(devices += 1)}x${Date.now()}`;
const PUSH_TOKEN = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';

await eachBackend(
  "Apple Wallet's PassKit web service",
  ({ it, issuer }) => {
    it('registers a device for a pass (201), again (200), and unregisters it (200)', async () => {
      const { app } = issuer();
      const s = await scenario(app);
      const device = newDevice();
      const register = () =>
        app.inject({
          method: 'POST',
          url: registration(device, s.tid),
          headers: passAuth(s.tid),
          payload: { pushToken: PUSH_TOKEN },
        });
      assert.equal((await register()).statusCode, 201);
      assert.equal((await register()).statusCode, 200);
      const list = await app.inject({
        method: 'GET',
        url: `${PREFIX}/devices/${device}/registrations/${PASS_TYPE_ID}`,
      });
      assert.equal(list.statusCode, 200);
      assert.deepEqual(list.json().serialNumbers, [s.tid]);
      const removed = await app.inject({
        method: 'DELETE',
        url: registration(device, s.tid),
        headers: passAuth(s.tid),
      });
      assert.equal(removed.statusCode, 200);
      const none = await app.inject({
        method: 'GET',
        url: `${PREFIX}/devices/${device}/registrations/${PASS_TYPE_ID}`,
      });
      assert.equal(none.statusCode, 204);
    });

    it('a wrong or missing ApplePass token is 401 in the envelope, and registers nothing', async () => {
      const { app } = issuer();
      const [a, b] = [await scenario(app), await scenario(app)];
      const device = newDevice();
      const headerSets: Record<string, string>[] = [
        {},
        passAuth(b.tid),
        { authorization: `Bearer ${passAuth(a.tid).authorization.slice(10)}` },
      ];
      for (const headers of headerSets) {
        const res = await app.inject({
          method: 'POST',
          url: registration(device, a.tid),
          headers,
          payload: { pushToken: PUSH_TOKEN },
        });
        assert.equal(res.statusCode, 401);
        assert.equal(res.json().error.code, 'UNAUTHORIZED');
        const removed = await app.inject({ method: 'DELETE', url: registration(device, a.tid), headers });
        assert.equal(removed.statusCode, 401);
        const pass = await fetchPass(app, a.tid, headers.authorization ? headers : { authorization: '' });
        assert.equal(pass.statusCode, 401);
      }
      const list = await app.inject({
        method: 'GET',
        url: `${PREFIX}/devices/${device}/registrations/${PASS_TYPE_ID}`,
      });
      assert.equal(list.statusCode, 204);
    });

    it('bad input is 400 naming the field; another pass type or an unknown ticket is 404', async () => {
      const { app } = issuer();
      const s = await scenario(app);
      const device = newDevice();
      const post = (url: string, payload: unknown) =>
        app.inject({ method: 'POST', url, headers: passAuth(s.tid), payload: payload as object });
      for (const payload of [{}, { pushToken: '' }, { pushToken: 'has spaces' }, { pushToken: 7 }]) {
        const res = await post(registration(device, s.tid), payload);
        assert.equal(res.statusCode, 400, JSON.stringify(payload));
        assert.equal(res.json().error.code, 'INVALID_REQUEST');
        assert.match(JSON.stringify(res.json().error.details), /pushToken/);
      }
      const badDevice = await post(registration('dev%20ice', s.tid), { pushToken: PUSH_TOKEN });
      assert.equal(badDevice.statusCode, 400);
      const badSince = await app.inject({
        method: 'GET',
        url: `${PREFIX}/devices/${device}/registrations/${PASS_TYPE_ID}?passesUpdatedSince=%3Cscript%3E`,
      });
      assert.equal(badSince.statusCode, 400);
      assert.equal(
        (await post(registration(device, s.tid, 'pass.other.type'), { pushToken: PUSH_TOKEN })).statusCode,
        404,
      );
      const unknown = 'tkt_01J00000000000000000000000';
      const res = await app.inject({
        method: 'POST',
        url: registration(device, unknown),
        headers: passAuth(unknown),
        payload: { pushToken: PUSH_TOKEN },
      });
      assert.equal(res.statusCode, 404);
      assert.equal((await fetchPass(app, unknown)).statusCode, 404);
      const log = await app.inject({ method: 'POST', url: `${PREFIX}/log`, payload: { logs: 'not a list' } });
      assert.equal(log.statusCode, 400);
    });

    it('lists the serials changed since passesUpdatedSince, with the tag to send next; 204 when none', async () => {
      const { app } = issuer();
      const [a, b] = [await scenario(app), await scenario(app)];
      const device = newDevice();
      for (const s of [a, b]) {
        const res = await app.inject({
          method: 'POST',
          url: registration(device, s.tid),
          headers: passAuth(s.tid),
          payload: { pushToken: PUSH_TOKEN },
        });
        assert.equal(res.statusCode, 201);
      }
      const url = `${PREFIX}/devices/${device}/registrations/${PASS_TYPE_ID}`;
      const first = (await app.inject({ method: 'GET', url })).json();
      assert.deepEqual(first.serialNumbers, [a.tid, b.tid].sort());
      const since = (tag: string) =>
        app.inject({ method: 'GET', url: `${url}?passesUpdatedSince=${encodeURIComponent(tag)}` });
      assert.equal((await since(first.lastUpdated)).statusCode, 204);
      await adminCall(app, 'POST', `/admin/v1/tickets/${b.tid}/revoke`, {});
      const changed = await since(first.lastUpdated);
      assert.equal(changed.statusCode, 200);
      assert.deepEqual(changed.json().serialNumbers, [b.tid]);
      assert.ok(changed.json().lastUpdated > first.lastUpdated);
      assert.equal((await since(changed.json().lastUpdated)).statusCode, 204);
    });

    it('the latest pass answers 304 for If-Modified-Since not older than it, and 200 once it changed', async () => {
      const { app } = issuer();
      const s = await scenario(app);
      const first = await fetchPass(app, s.tid);
      const lastModified = String(first.headers['last-modified']);
      assert.equal((await fetchPass(app, s.tid, { 'if-modified-since': lastModified })).statusCode, 304);
      const later = new Date(Date.parse(lastModified) + 60_000).toUTCString();
      assert.equal((await fetchPass(app, s.tid, { 'if-modified-since': later })).statusCode, 304);
      const earlier = new Date(Date.parse(lastModified) - 1000).toUTCString();
      assert.equal((await fetchPass(app, s.tid, { 'if-modified-since': earlier })).statusCode, 200);
      assert.equal((await fetchPass(app, s.tid, { 'if-modified-since': 'yesterday' })).statusCode, 200);
      await adminCall(app, 'PATCH', `/admin/v1/tickets/${s.tid}`, { attention: true });
      const changed = await fetchPass(app, s.tid, { 'if-modified-since': lastModified });
      assert.equal(changed.statusCode, 200);
      assert.ok(Date.parse(String(changed.headers['last-modified'])) > Date.parse(lastModified));
      // Two changes within one second still look like two.
      const mark = String(changed.headers['last-modified']);
      await adminCall(app, 'PATCH', `/admin/v1/tickets/${s.tid}`, { attention: false });
      assert.equal((await fetchPass(app, s.tid, { 'if-modified-since': mark })).statusCode, 200);
    });

    it('POST log logs the entries at info, cut to size, and answers 200', async () => {
      const { app, logs } = issuer();
      const entries = [
        'Web service error for pass.test.tickets: bad response',
        'x'.repeat(5000),
        ...Array(30).fill('more'),
      ];
      const res = await app.inject({ method: 'POST', url: `${PREFIX}/log`, payload: { logs: entries } });
      assert.equal(res.statusCode, 200);
      const line = logs.lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.msg === 'Apple Wallet log')!;
      assert.equal(line.level, 30);
      const logged = line.wallet_logs as string[];
      assert.equal(logged.length, 20);
      assert.equal(logged[0], entries[0]);
      assert.equal(logged[1]!.length, 1000);
      assert.equal(line.wallet_logs_dropped, 12);
    });
  },
  { env: files.env },
);

describe('the PassKit web service, where Apple Wallet is not configured or a device asks too often', () => {
  plainIt('answers 404 in the envelope', async () => {
    const plain = await testIssuer();
    try {
      const res = await plain.app.inject({ method: 'POST', url: `${PREFIX}/log`, payload: { logs: [] } });
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().error.code, 'NOT_FOUND');
      const pass = await plain.app.inject({ method: 'GET', url: `${PREFIX}/passes/${PASS_TYPE_ID}/tkt_1` });
      assert.equal(pass.statusCode, 404);
    } finally {
      await plain.close();
    }
  });

  plainIt('limits each address to RATE_LIMIT_WALLET_PER_IP requests a window (429 with Retry-After)', async () => {
    const limited = await testIssuer({ env: { ...files.env, RATE_LIMIT_WALLET_PER_IP: '3' } });
    try {
      const statuses = [];
      for (let i = 0; i < 5; i += 1) {
        const res = await limited.app.inject({ method: 'POST', url: `${PREFIX}/log`, payload: { logs: [] } });
        statuses.push(res.statusCode);
        if (res.statusCode === 429) assert.ok(Number(res.headers['retry-after']) >= 1);
      }
      assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
    } finally {
      await limited.close();
    }
  });
});
