import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { ADMIN_TOKEN, adminCall, scenario, testIssuer, type TestIssuer } from '../helpers/app.ts';
import { makeAppleFiles, PASS_TYPE_ID } from '../helpers/apple-certs.ts';
import { expectedPassToken, passAuth } from '../helpers/apple-pass.ts';
import { startLocalApns } from '../helpers/apns-server.ts';
import { type RunningServer, startServer } from '../helpers/server.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';
import { eventually as waitFor } from '../helpers/eventually.ts';

const files = makeAppleFiles();
const apns = await startLocalApns(files.apnsPublicKey);
const answers = new Map<string, { status: number; reason?: string }[]>();
apns.answer = (push) => answers.get(push.path.slice('/3/device/'.length))?.shift() ?? { status: 200 };
const pushesTo = (token: string) => apns.pushes.filter((p) => p.path === `/3/device/${token}`);
const env = { ...files.env, APNS_URL: apns.url, APNS_RETRY_SCHEDULE_S: '1,1,1' };
after(async () => {
  await apns.close();
  files.remove();
});

const eventually = (done: () => boolean, what: string) => waitFor(what, done, 15_000, 50);

const pg = await postgresAvailability('pass pushes from two instances on PostgreSQL');

describe('pass pushes from two instances on one PostgreSQL database', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  let a: TestIssuer | undefined;
  let b: TestIssuer | undefined;
  before(async () => {
    if (pg.skip !== undefined) return;
    if (pg.problem !== null) assert.fail(`PostgreSQL is required (REQUIRE_SERVICES=1): ${pg.problem}`);
    database = await freshDatabase();
    const deps = { applePushes: { apnsCa: apns.ca, pollMs: 20 } };
    a = await testIssuer({ store: await PostgresStore.open(database.url), env, deps });
    b = await testIssuer({ store: await PostgresStore.open(database.url), env, deps });
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  itUnless(pg.skip)('each device gets one push per change, whichever instance sends it', async () => {
    await Promise.all([a!.app.ready(), b!.app.ready()]);
    const s = await scenario(a!.app);
    const tokens = Array.from({ length: 12 }, () => randomBytes(32).toString('hex'));
    for (const [i, pushToken] of tokens.entries()) {
      const app = i % 2 === 0 ? a!.app : b!.app;
      const res = await app.inject({
        method: 'POST',
        url: `/wallet/apple/v1/devices/dev${i}x${Date.now()}/registrations/${PASS_TYPE_ID}/${s.tid}`,
        headers: passAuth(s.tid),
        payload: { pushToken },
      });
      assert.equal(res.statusCode, 201);
    }
    await adminCall(b!.app, 'POST', `/admin/v1/tickets/${s.tid}/revoke`, {});
    await eventually(() => tokens.every((t) => pushesTo(t).length >= 1), 'every device pushed');
    await sleep(500);
    assert.deepEqual(
      tokens.map((t) => pushesTo(t).length),
      tokens.map(() => 1),
    );
  });
});

describe('pass pushes survive a restart of the issuer (the real server, SQLite file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'issuer-apple-restart-'));
  const kek = randomBytes(32);
  const serverEnv = {
    ...env,
    APNS_RETRY_SCHEDULE_S: '2,2,2,2,2,2,2,2,2,2',
    DATABASE_URL: `sqlite:${join(dir, 'issuer.db')}`,
    ADMIN_TOKEN,
    KEY_ENCRYPTION_KEY: kek.toString('hex'),
    // The local APNs's certificate, trusted by the issuer process beside the system's.
    NODE_EXTRA_CA_CERTS: join(files.dir, 'apns-ca.pem'),
  };
  let server: RunningServer | null = null;
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a push APNs could not take before the stop is sent after the start', async () => {
    writeFileSync(serverEnv.NODE_EXTRA_CA_CERTS, apns.ca);
    server = await startServer(serverEnv);
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(`${server!.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, json: (await res.json().catch(() => null)) as Record<string, string> | null };
    };
    const event = await call('POST', '/admin/v1/events', { name: 'Restart Fest', event_date: '2026-06-02T18:00:00Z' });
    const ticket = await call('POST', `/admin/v1/events/${event.json!.eid}/tickets`, {
      holder_name: 'Grace Hopper',
      ticket_type: 'GA',
    });
    const tid = ticket.json!.tid!;
    const pushToken = randomBytes(32).toString('hex');
    const registered = await call(
      'POST',
      `/wallet/apple/v1/devices/restartdevice/registrations/${PASS_TYPE_ID}/${tid}`,
      { pushToken },
      { authorization: `ApplePass ${expectedPassToken(tid, kek)}` },
    );
    assert.equal(registered.status, 201);
    // APNs is down until the issuer has stopped: the push waits in the outbox through the restart.
    answers.set(
      pushToken,
      Array.from({ length: 100 }, () => ({ status: 503, reason: 'ServiceUnavailable' })),
    );
    assert.equal((await call('POST', `/admin/v1/tickets/${tid}/revoke`, {})).status, 200);
    await eventually(() => pushesTo(pushToken).length === 1, 'the first attempt');
    await server.stop();
    server = null;
    const beforeRestart = pushesTo(pushToken).length;
    answers.delete(pushToken);
    server = await startServer(serverEnv);
    await eventually(() => pushesTo(pushToken).length === beforeRestart + 1, 'the attempt after the restart');
    assert.equal(pushesTo(pushToken).at(-1)!.headers['apns-topic'], PASS_TYPE_ID);
    // Taken with 200: sent, never again.
    await sleep(2_500);
    assert.equal(pushesTo(pushToken).length, beforeRestart + 1);
  });
});
