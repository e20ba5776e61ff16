import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe } from 'node:test';
import { FixedClock } from '../../src/domain/clock.ts';
import { hashSecret } from '../../src/domain/ids.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { adminCall, checkInBody, enrollScanner, postCheckIn, scenario, T0, type TestIssuer } from '../helpers/app.ts';
import { assertKillDuringCheckInsLosesNothing } from '../helpers/kill-during-check-ins.ts';
import { assertMixedBatchAnswered } from '../helpers/mixed-batch.ts';
import { type RunningServer, startServer } from '../helpers/server.ts';
import { twoIssuersOnOneDatabase } from '../helpers/postgres-issuers.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';

const { problem, skip } = await postgresAvailability('PostgreSQL batch tests');

describe('check-ins batched on PostgreSQL, two instances', () => {
  const it = itUnless(skip);
  let a: TestIssuer;
  let b: TestIssuer;
  const clock = new FixedClock(T0);
  const issuers = twoIssuersOnOneDatabase({ problem, skip }, clock);
  const batches = () => (a.store as PostgresStore).committedBatches + (b.store as PostgresStore).committedBatches;

  before(() => {
    if (skip === undefined) ({ a, b } = issuers());
  });

  it('1,000 simultaneous check-ins of 100 tickets over both instances give exactly 100 valid', async () => {
    const s = await scenario(a.app);
    const issued = await adminCall<{ tickets: { tid: string }[] }>(a.app, 'POST', `/admin/v1/events/${s.eid}/tickets`, {
      tickets: Array.from({ length: 100 }, (_, i) => ({ holder_name: `Guest ${i}`, ticket_type: 'GA' })),
    });
    const tids = issued.tickets.map((t) => t.tid);
    const before = batches();
    const answers = await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        postCheckIn(i % 2 === 0 ? a.app : b.app, s.apiKey, checkInBody({ ...s, tid: tids[i % 100]! }, T0)),
      ),
    );
    const statuses = answers.map((r) => r.json().status as string);
    assert.equal(statuses.filter((x) => x === 'valid').length, 100);
    assert.equal(statuses.filter((x) => x === 'already_used').length, 900);
    const validTids = new Set(answers.filter((r) => r.json().status === 'valid').map((r) => r.json().ticket.tid));
    assert.equal(validTids.size, 100, 'one valid per ticket');
    const event = await adminCall<{ counters: { checked_in: number } }>(b.app, 'GET', `/admin/v1/events/${s.eid}`);
    assert.equal(event.counters.checked_in, 100);
    assert.ok(batches() - before < 1000, 'check-ins shared transactions');
  });

  it('one batch with a replay, a changed body, a revoked ticket, an unknown tid and a repeated key answers each rightly', async () => {
    await assertMixedBatchAnswered(a.app);
  });

  it('a key revoked on one instance during load is refused on its next check-in on the other', async () => {
    const s = await scenario(a.app);
    const issued = await adminCall<{ tickets: { tid: string }[] }>(a.app, 'POST', `/admin/v1/events/${s.eid}/tickets`, {
      tickets: Array.from({ length: 400 }, (_, i) => ({ holder_name: `Guest ${i}`, ticket_type: 'GA' })),
    });
    let revokedAt = Infinity;
    const afterRevoke: number[] = [];
    let sent = 0;
    const worker = async () => {
      while (sent < issued.tickets.length) {
        const tid = issued.tickets[sent++]!.tid;
        const startedAt = performance.now();
        const res = await postCheckIn(a.app, s.apiKey, checkInBody({ ...s, tid }, T0));
        if (startedAt > revokedAt) afterRevoke.push(res.statusCode);
        else assert.ok([200, 401].includes(res.statusCode), `${res.statusCode}`);
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, worker));
    while (sent < 100) await new Promise((resolve) => setImmediate(resolve));
    await adminCall(b.app, 'POST', `/admin/v1/api-keys/${s.apiKeyId}/revoke`);
    revokedAt = performance.now();
    await load;
    assert.ok(afterRevoke.length > 0, 'requests were sent after the revocation');
    assert.deepEqual(new Set(afterRevoke), new Set([401]), 'every check-in sent after the revocation is refused');
  });

  it('a batch whose write fails is applied check-in by check-in: only the bad one fails', async () => {
    const store = a.store as PostgresStore;
    const s = await scenario(a.app);
    const other = await enrollScanner(a.app, s.eid);
    const issued = await adminCall<{ tickets: { tid: string }[] }>(a.app, 'POST', `/admin/v1/events/${s.eid}/tickets`, {
      tickets: [
        { holder_name: 'One', ticket_type: 'GA' },
        { holder_name: 'Two', ticket_type: 'GA' },
      ],
    });
    const key = await store.scanners.findApiKey(hashSecret(other.apiKey));
    const attempt = (tid: string, gate: string | null) => ({
      eid: s.eid,
      tid,
      idempotency_key: randomUUID(),
      fingerprint: `fp:${tid}`,
      api_key_id: key!.api_key_id,
      scanner_id: key!.scanner_id,
      gate_id: gate,
      scanned_at: T0,
      received_at: T0,
      admitted_offline: false,
    });
    const valid = (ticket: { tid: string } | null) => ({
      outcome: 'valid' as const,
      reason: null,
      move: { to: 'inside' as const, from: 'unused' as const, at: T0 },
      answer: { http_status: 200, body: { status: 'valid', tid: ticket?.tid } },
    });
    const before = store.committedBatches;
    // PostgreSQL refuses a NUL in text: the batch's write statement fails as a whole.
    const results = await Promise.allSettled([
      store.checkIns.checkIn(attempt(issued.tickets[0]!.tid, 'north'), valid),
      store.checkIns.checkIn(attempt(issued.tickets[1]!.tid, 'bad\u0000gate'), valid),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected'],
    );
    assert.equal(store.committedBatches, before, 'the batch did not commit');
    const states = await Promise.all(issued.tickets.map((t) => store.tickets.getTicket(t.tid)));
    assert.deepEqual(
      states.map((t) => t!.checked_in_at),
      [T0, null],
    );
  });
});

describe('the real server on PostgreSQL', () => {
  const it = itUnless(skip);
  let database: Awaited<ReturnType<typeof freshDatabase>> | null = null;
  const servers: RunningServer[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGKILL')));
    await database?.drop();
  });

  it('kill -9 while check-ins commit in batches loses none that was answered', async () => {
    database = await freshDatabase();
    const start = async (env: Record<string, string>) => {
      const server = await startServer(env);
      servers.push(server);
      return server;
    };
    await assertKillDuringCheckInsLosesNothing(start, {
      ADMIN_TOKEN: 'batch-durability-admin-token-0123456789',
      DATABASE_URL: database.url,
      RATE_LIMIT_CHECKIN_PER_KEY: '100000',
    });
  });
});
