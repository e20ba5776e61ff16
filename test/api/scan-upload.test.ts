import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { eachBackend } from '../helpers/backends.ts';
import { FaultProxy } from '../helpers/fault-proxy.ts';
import { adminCall, enrollScanner, postCheckIn, T0, testIssuer, type TestIssuer } from '../helpers/app.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';
import type { App } from '../../src/http/context.ts';

const MINUTE = 60_000;
const at = (offsetMs: number) => new Date(Date.parse(T0) + offsetMs).toISOString();

type Body = Record<string, unknown>;
type Result = { idempotency_key: string | null; status_code: number; body: unknown };

/** An event with a gate that admits only VIP, GA tickets, and a scanner of its own. */
interface World {
  eid: string;
  scannerId: string;
  apiKey: string;
  tids: string[];
  tokens: string[];
}

async function world(app: App, tickets = 4, settings: Body = {}): Promise<World> {
  const { eid } = await adminCall<{ eid: string }>(app, 'POST', '/admin/v1/events', {
    name: 'Upload Festival',
    event_date: '2026-06-02T18:00:00Z',
  });
  if (Object.keys(settings).length > 0) await patchEvent(app, eid, settings);
  await app.inject({
    method: 'PUT',
    url: `/admin/v1/events/${eid}/gates/vip`,
    headers: { authorization: 'Bearer test-admin-token-0123456789abcdef' },
    payload: { name: 'VIP entrance', admits: ['VIP'] },
  });
  const issued = await adminCall<{ tickets: { tid: string; ticket_token: string }[] }>(
    app,
    'POST',
    `/admin/v1/events/${eid}/tickets`,
    { tickets: Array.from({ length: tickets }, (_, i) => ({ holder_name: `Holder ${i}`, ticket_type: 'GA' })) },
  );
  const scannerId = randomUUID();
  const { apiKey } = await enrollScanner(app, eid, scannerId);
  return {
    eid,
    scannerId,
    apiKey,
    tids: issued.tickets.map((t) => t.tid),
    tokens: issued.tickets.map((t) => t.ticket_token),
  };
}

async function patchEvent(app: App, eid: string, settings: Body): Promise<void> {
  const res = await app.inject({
    method: 'PATCH',
    url: `/admin/v1/events/${eid}`,
    headers: { authorization: 'Bearer test-admin-token-0123456789abcdef' },
    payload: settings,
  });
  assert.equal(res.statusCode, 200, res.body);
}

const upload = (app: App, apiKey: string, payload: unknown) =>
  app.inject({
    method: 'POST',
    url: '/api/v1/tickets/scans',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });

const single = (app: App, apiKey: string, action: string, body: Body) =>
  app.inject({
    method: 'POST',
    url: `/api/v1/tickets/${action === 'check_out' ? 'check-out' : 'check-in'}`,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });

const scanLog = async (app: App, eid: string) =>
  (await adminCall<{ scans: Body[] }>(app, 'GET', `/admin/v1/events/${eid}/scans?limit=1000`)).scans;

/** A ticket of another event, shared by both worlds: its `wrong_event` answer is the same in each. */
interface Foreign {
  eid: string;
  tid: string;
}

/** Keys of the table, the same in both worlds: idempotency keys are scoped to the event. */
const K = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i + 1}`, randomUUID()])) as Record<
  string,
  string
>;

/** Every kind of answer a single endpoint gives, in the order the scans are made. */
function table(w: World, foreign: Foreign): { name: string; action: string; body: Body }[] {
  const base = (tid: number, key: string, extra: Body = {}): Body => ({
    tid: w.tids[tid],
    eid: w.eid,
    scanned_at: at(-60 * MINUTE),
    scanner_id: w.scannerId,
    idempotency_key: key,
    ...extra,
  });
  return [
    { name: 'valid', action: 'check_in', body: base(0, K.k1!, { ticket_token: w.tokens[0] }) },
    { name: 'already_used', action: 'check_in', body: base(0, K.k2!, { scanned_at: at(-30 * MINUTE) }) },
    { name: 'replay', action: 'check_in', body: base(0, K.k1!, { ticket_token: w.tokens[0] }) },
    {
      name: 'idempotency conflict',
      action: 'check_in',
      body: base(0, K.k1!, { ticket_token: w.tokens[0], scanned_at: at(-50 * MINUTE) }),
    },
    {
      name: 'wrong event',
      action: 'check_in',
      body: { ...base(0, K.k3!), tid: foreign.tid, signature_valid: true },
    },
    { name: 'gate refusal (403)', action: 'check_in', body: base(1, K.k4!, { gate_id: 'vip' }) },
    { name: 'invalid item: schema', action: 'check_in', body: { ...base(1, K.k5!), scanner_id: undefined } },
    { name: 'invalid item: scanned_at', action: 'check_in', body: base(1, K.k6!, { scanned_at: 'yesterday' }) },
    { name: 'too old', action: 'check_in', body: base(1, K.k7!, { scanned_at: at(-49 * 60 * MINUTE) }) },
    { name: 'invalid idempotency key', action: 'check_in', body: base(1, 'not-a-uuid') },
    { name: 'no idempotency key', action: 'check_in', body: { ...base(1, K.k8!), idempotency_key: undefined } },
    { name: 'invalid signature', action: 'check_in', body: base(2, K.k9!, { signature_valid: false }) },
    { name: 'unknown tid', action: 'check_in', body: { ...base(2, K.k10!), tid: 'no-such-ticket' } },
    { name: 'key of another event (403)', action: 'check_in', body: { ...base(2, K.k11!), eid: foreign.eid } },
    { name: 'turned away offline (409)', action: 'check_in', body: base(3, K.k12!, { admitted_offline: false }) },
    { name: 'lone surrogate', action: 'check_in', body: base(2, K.k13!, { gate_id: 'gate\ud800' }) },
    { name: 'over 64 KiB', action: 'check_in', body: base(2, K.k14!, { note: 'x'.repeat(70 * 1024) }) },
    { name: 'check_out', action: 'check_out', body: base(0, K.k15!, { scanned_at: at(-20 * MINUTE) }) },
    { name: 'check_out, not inside', action: 'check_out', body: base(1, K.k16!) },
    {
      name: 'check_out under a check-in key (409)',
      action: 'check_out',
      body: base(0, K.k2!, { scanned_at: at(-30 * MINUTE) }),
    },
    { name: 'check_out replay', action: 'check_out', body: base(0, K.k15!, { scanned_at: at(-20 * MINUTE) }) },
  ];
}

/** A's identifiers written as B's, so that two worlds' answers compare. */
function asWorld(value: unknown, from: World, to: World): unknown {
  let text = JSON.stringify(value);
  const pairs: [string, string][] = [
    [from.eid, to.eid],
    [from.scannerId, to.scannerId],
    ...from.tids.map((tid, i): [string, string] => [tid, to.tids[i]!]),
  ];
  for (const [a, b] of pairs) text = text.split(a).join(b);
  return JSON.parse(text);
}

await eachBackend('POST /api/v1/tickets/scans', ({ it, issuer }) => {
  it('answers each scan exactly as its single endpoint would, one bad scan failing none of the others', async () => {
    const { app } = issuer();
    const other = await world(app, 1);
    const foreign: Foreign = { eid: other.eid, tid: other.tids[0]! };
    const a = await world(app);
    const b = await world(app);
    const steps = table(a, foreign);
    const singles: { status: number; body: unknown }[] = [];
    for (const step of steps) {
      const res = await single(app, a.apiKey, step.action, step.body);
      singles.push({ status: res.statusCode, body: res.json() });
    }
    const stepsB = table(b, foreign);
    const res = await upload(app, b.apiKey, { scans: stepsB.map((s) => ({ action: s.action, ...s.body })) });
    assert.equal(res.statusCode, 200, res.body);
    const { results } = res.json() as { results: Result[] };
    assert.equal(results.length, steps.length);
    steps.forEach((step, i) => {
      const expected = singles[i]!;
      const got = results[i]!;
      assert.equal(got.status_code, expected.status, `${step.name}: status`);
      assert.deepEqual(got.body, asWorld(expected.body, a, b), `${step.name}: body`);
      const key = stepsB[i]!.body.idempotency_key;
      assert.equal(got.idempotency_key, typeof key === 'string' ? key : null, `${step.name}: idempotency_key`);
    });
    // Every kind of answer is in the table: the comparison above covers them all.
    const statuses = new Set(results.map((r) => r.status_code));
    assert.deepEqual([...statuses].sort(), [200, 400, 403, 404, 409, 413]);
    // The scan logs agree too: the same outcomes, in each ticket's order.
    const outcomes = (log: Body[], w: World) =>
      w.tids.map((tid) => log.filter((s) => s.tid === tid).map((s) => [s.outcome, s.replay]));
    assert.deepEqual(outcomes(await scanLog(app, b.eid), b), outcomes(await scanLog(app, a.eid), a));
  });

  it('applies the scans of one ticket in the order given, tickets side by side', async () => {
    const { app } = issuer();
    const w = await world(app, 60, { reentry: true });
    const moves = ['check_in', 'check_out', 'check_in', 'check_out', 'check_in'];
    const scans = moves.flatMap((action, round) =>
      w.tids.map((tid) => ({
        action,
        tid,
        eid: w.eid,
        scanner_id: w.scannerId,
        scanned_at: at((round - 10) * MINUTE),
        idempotency_key: randomUUID(),
        signature_valid: true,
      })),
    );
    const res = await upload(app, w.apiKey, { scans });
    assert.equal(res.statusCode, 200, res.body);
    const { results } = res.json() as { results: Result[] };
    const statuses = results.map((r) => (r.body as { status: string }).status);
    const expected = ['valid', 'checked_out', 'valid', 'checked_out', 'valid'].flatMap((s) => w.tids.map(() => s));
    assert.deepEqual(statuses, expected);
    const occupancy = await adminCall<{ inside: number; entries: number; exits: number }>(
      app,
      'GET',
      `/admin/v1/events/${w.eid}/occupancy`,
    );
    assert.deepEqual([occupancy.inside, occupancy.entries, occupancy.exits], [60, 180, 120]);
  });

  it('more than 500 scans: 400 INVALID_REQUEST and nothing applied; 500 are taken', async () => {
    const { app } = issuer();
    const w = await world(app, 1);
    const scans = Array.from({ length: 501 }, (_, i) => ({
      action: 'check_in',
      tid: w.tids[0],
      eid: w.eid,
      scanner_id: w.scannerId,
      scanned_at: at(-i * 1000),
      idempotency_key: randomUUID(),
      signature_valid: true,
    }));
    const refused = await upload(app, w.apiKey, { scans });
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.json().error.code, 'INVALID_REQUEST');
    assert.deepEqual(refused.json().error.details.fields, [{ field: 'scans', problem: 'must hold at most 500 items' }]);
    assert.equal((await scanLog(app, w.eid)).length, 0, 'nothing in the scan log');
    const taken = await upload(app, w.apiKey, { scans: scans.slice(0, 500) });
    assert.equal(taken.statusCode, 200);
    const statuses = (taken.json() as { results: Result[] }).results.map((r) => (r.body as { status: string }).status);
    assert.deepEqual([statuses[0], new Set(statuses.slice(1))], ['valid', new Set(['already_used'])]);
  });

  it('a malformed upload is a 400 for the whole and applies nothing; an unknown action is that scan’s 400', async () => {
    const { app } = issuer();
    const w = await world(app, 1);
    const scan = {
      action: 'check_in',
      tid: w.tids[0],
      eid: w.eid,
      scanner_id: w.scannerId,
      scanned_at: at(-MINUTE),
      idempotency_key: randomUUID(),
      signature_valid: true,
    };
    for (const payload of ['[]', '{}', '{"scans":{}}', JSON.stringify({ scans: [scan, 1] }), '{"scans":[']) {
      const res = await upload(app, w.apiKey, payload);
      assert.equal(res.statusCode, 400, payload);
      assert.equal(res.json().error.code, 'INVALID_REQUEST', payload);
    }
    assert.equal((await scanLog(app, w.eid)).length, 0);
    const annulKey = randomUUID();
    const res = await upload(app, w.apiKey, {
      scans: [
        { ...scan, action: 'check_in_twice' },
        { ...scan, action: undefined, idempotency_key: randomUUID() },
        { ...scan, action: 'annul', idempotency_key: annulKey },
        scan,
      ],
    });
    assert.equal(res.statusCode, 200);
    const results = (res.json() as { results: Result[] }).results;
    for (const result of results.slice(0, 2)) {
      assert.equal(result.status_code, 400);
      assert.deepEqual((result.body as { error: { details: unknown } }).error.details, {
        fields: [{ field: 'action', problem: 'must be one of "check_in", "check_out", "annul"' }],
      });
    }
    // An annul with a check-in's body is answered as its endpoint answers that body (a 400).
    const annulRoute = await app.inject({
      method: 'POST',
      url: '/api/v1/tickets/check-in/annul',
      headers: { authorization: `Bearer ${w.apiKey}` },
      payload: { ...scan, idempotency_key: annulKey },
    });
    assert.equal(annulRoute.statusCode, 400);
    assert.deepEqual([results[2]!.status_code, results[2]!.body], [annulRoute.statusCode, annulRoute.json()]);
    assert.equal((results[3]!.body as { status: string }).status, 'valid');
  });

  it('takes a body up to 1 MiB; a larger one is a 413 and applies nothing', async () => {
    const { app } = issuer();
    const w = await world(app, 1);
    const scans = (padding: number) =>
      Array.from({ length: 500 }, (_, i) => ({
        action: 'check_in',
        tid: w.tids[0],
        eid: w.eid,
        scanner_id: w.scannerId,
        scanned_at: at(-i * 1000),
        idempotency_key: randomUUID(),
        signature_valid: true,
        note: 'n'.repeat(padding),
      }));
    const tooLarge = await upload(app, w.apiKey, { scans: scans(2100) });
    assert.equal(tooLarge.statusCode, 413);
    assert.equal((await scanLog(app, w.eid)).length, 0);
    const body = JSON.stringify({ scans: scans(1700) });
    assert.ok(body.length > 900_000 && body.length < 1024 * 1024);
    assert.equal((await upload(app, w.apiKey, body)).statusCode, 200);
  });
});

describe('POST /api/v1/tickets/scans: rate limit', () => {
  let t: TestIssuer;
  before(async () => {
    t = await testIssuer({ env: { RATE_LIMIT_CHECKIN_PER_KEY: '3' } });
  });
  after(() => t.close());

  it('one upload counts as one request against RATE_LIMIT_CHECKIN_PER_KEY', async () => {
    const w = await world(t.app, 500);
    const scans = () =>
      w.tids.map((tid) => ({
        action: 'check_in',
        tid,
        eid: w.eid,
        scanner_id: w.scannerId,
        scanned_at: at(-MINUTE),
        idempotency_key: randomUUID(),
        signature_valid: true,
      }));
    for (let i = 0; i < 2; i++) assert.equal((await upload(t.app, w.apiKey, { scans: scans() })).statusCode, 200);
    const one = scans()[0]!;
    assert.equal((await postCheckIn(t.app, w.apiKey, { ...one, action: undefined })).statusCode, 200);
    const limited = await upload(t.app, w.apiKey, { scans: scans() });
    assert.equal(limited.statusCode, 429);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal((await postCheckIn(t.app, w.apiKey, scans()[1])).statusCode, 429, 'the same budget as check-in');
  });
});

describe('POST /api/v1/tickets/scans: the scan budget', () => {
  let t: TestIssuer;
  before(async () => {
    t = await testIssuer({ env: { RATE_LIMIT_SCANS_PER_KEY: '10' } });
  });
  after(() => t.close());

  it('each scan of an upload counts against RATE_LIMIT_SCANS_PER_KEY; past it the upload is not applied', async () => {
    const w = await world(t.app, 8);
    const scans = (tids: string[]) =>
      tids.map((tid) => ({
        action: 'check_in',
        tid,
        eid: w.eid,
        scanner_id: w.scannerId,
        scanned_at: at(-MINUTE),
        idempotency_key: randomUUID(),
        signature_valid: true,
      }));
    assert.equal((await upload(t.app, w.apiKey, { scans: scans(w.tids) })).statusCode, 200);
    assert.equal((await scanLog(t.app, w.eid)).length, 8);
    // Three more scans pass the budget of ten: one request, but 500 rows' worth of writes is what the budget stops.
    const limited = await upload(t.app, w.apiKey, { scans: scans(w.tids.slice(0, 3)) });
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().error.code, 'RATE_LIMITED');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal((await scanLog(t.app, w.eid)).length, 8, 'nothing of the refused upload was applied');
  });
});

const pg = await postgresAvailability('scan upload outage on PostgreSQL');

describe('POST /api/v1/tickets/scans: a store outage (PostgreSQL)', () => {
  const pgIt = itUnless(pg.skip);
  let t: TestIssuer | undefined;
  let proxy: FaultProxy | undefined;
  let drop: (() => Promise<void>) | undefined;
  before(async () => {
    if (pg.skip) return;
    const database = await freshDatabase();
    drop = database.drop;
    proxy = await FaultProxy.start({ host: '127.0.0.1', port: 5432 });
    const url = new URL(database.url);
    url.host = `127.0.0.1:${proxy.port}`;
    t = await testIssuer({ store: await PostgresStore.open(url.toString()) });
  });
  after(async () => {
    proxy?.set('pass');
    await t?.close();
    await proxy?.close();
    await drop?.();
  });

  pgIt('answers 503 with Retry-After for the whole upload; its retry gets every scan once', async () => {
    const w = await world(t!.app, 20);
    const scans = w.tids.map((tid) => ({
      action: 'check_in',
      tid,
      eid: w.eid,
      scanner_id: w.scannerId,
      scanned_at: at(-MINUTE),
      idempotency_key: randomUUID(),
      signature_valid: true,
    }));
    // An empty upload first: the key is then taken from memory, and the cut meets the scans themselves.
    assert.equal((await upload(t!.app, w.apiKey, { scans: [] })).statusCode, 200);
    proxy!.set('reset');
    const cut = await upload(t!.app, w.apiKey, { scans });
    assert.equal(cut.statusCode, 503, cut.body);
    assert.equal(cut.json().error.code, 'UNAVAILABLE');
    assert.ok(Number(cut.headers['retry-after']) >= 1);
    const outage = t!.logs.lines.map((line) => JSON.parse(line) as Body).find((l) => l.msg === 'store unavailable');
    assert.ok(outage?.api_key_id, 'the scanner was authenticated: the outage met its scans');
    proxy!.set('pass');
    let again = await upload(t!.app, w.apiKey, { scans });
    for (let i = 0; again.statusCode === 503 && i < 50; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = await upload(t!.app, w.apiKey, { scans });
    }
    assert.equal(again.statusCode, 200, again.body);
    const statuses = (again.json() as { results: Result[] }).results.map((r) => (r.body as { status: string }).status);
    assert.deepEqual(new Set(statuses), new Set(['valid']));
  });
});
