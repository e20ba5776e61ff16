import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { PrivatePostgres } from '../helpers/private-postgres.ts';
import { brokenPromises, eventWithTickets, runScanners } from '../helpers/scan-load.ts';
import { call, type RunningServer, startServer } from '../helpers/server.ts';
import { itUnless, REQUIRE_SERVICES } from '../helpers/services.ts';

const ADMIN = 'restart-admin-token-0123456789abcdef';
const REQUEST_TIMEOUT_S = 6;
const missing = PrivatePostgres.unavailableBecause();
if (missing !== null) {
  if (REQUIRE_SERVICES) throw new Error(`${missing}; REQUIRE_SERVICES=1 forbids skipping`);
  process.stderr.write(`\n!!! ${missing}: PostgreSQL restart tests SKIPPED\n\n`);
}
const it = itUnless(missing ?? undefined);

describe('PostgreSQL restarting under load (pg_ctl restart of a server of the test’s own)', () => {
  let postgres: PrivatePostgres;
  let server: RunningServer;

  before(async () => {
    if (missing) return;
    postgres = await PrivatePostgres.start();
    server = await startServer({
      DATABASE_URL: postgres.url,
      ADMIN_TOKEN: ADMIN,
      REQUEST_TIMEOUT_S: String(REQUEST_TIMEOUT_S),
      RATE_LIMIT_CHECKIN_PER_KEY: '100000',
      RATE_LIMIT_ENROLL_PER_IP: '1000',
      LOG_LEVEL: 'warn',
    });
  });
  after(async () => {
    if (missing) return;
    await server?.stop();
    await postgres?.destroy();
  });

  for (const mode of ['fast', 'immediate'] as const) {
    it(`${mode === 'fast' ? 'a fast' : 'an immediate'} restart: 503s with Retry-After meanwhile, serving again within 5 s, nothing answered lost, no second valid`, async () => {
      const { eid, tickets } = await eventWithTickets(server.url, ADMIN, `Restart ${mode}`, 1000);
      const tids = tickets.map((t) => t.tid);
      let stop = false;
      const { report, done } = await runScanners({
        base: server.url,
        admin: ADMIN,
        eid,
        tids,
        scanners: 20,
        pauseMs: 50,
        requestTimeoutMs: (REQUEST_TIMEOUT_S + 2) * 1000,
        until: () => stop,
      });
      await sleep(1500);
      await postgres.restart(mode);
      const back = Date.now();
      let served = Infinity;
      for (let waited = 0; waited < 5000; waited += 50) {
        const ok = report.okTimes.find((t) => t > back);
        if (ok !== undefined) {
          served = ok - back;
          break;
        }
        await sleep(50);
      }
      assert.ok(served <= 5000, `a check-in was answered 200 within 5 s of the database's return (${served} ms)`);
      await sleep(1500);
      stop = true;
      await done;
      assert.ok(report.retried > 0, 'the restart was felt: scanners had to retry');
      assert.deepEqual(report.violations, [], 'no 5xx but 503 with Retry-After');
      assert.ok(report.slowestMs <= (REQUEST_TIMEOUT_S + 1) * 1000, `slowest answer ${report.slowestMs} ms`);
      assert.deepEqual(await brokenPromises(server.url, ADMIN, eid, report), []);
      assert.ok(report.answers.size > 100, `scans were answered (${report.answers.size})`);
      assert.equal((await call(`${server.url}/readyz`)).status, 200);
      assert.equal(server.process.exitCode, null, 'the issuer still runs');
    });
  }
});
