import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { enroll, Scanner, type SyncResult } from '../../packages/scanner/src/index.ts';
import { nodeHttpTransport } from '../../packages/scanner/src/node-http.ts';
import { FsStorage } from '../../packages/scanner/src/storage/fs.ts';
import { tempDir } from '../../packages/scanner/test/issuer.ts';
import { FaultProxy } from '../helpers/fault-proxy.ts';
import { eventWithTickets, scanLog } from '../helpers/scan-load.ts';
import { call, freePort, type RunningServer, startServer } from '../helpers/server.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';

const ADMIN = 'sync-fault-admin-token-0123456789abcdef';
const SCANNERS = 20;
const PER_SCANNER = 150;
const postgres = await postgresAvailability('scanner sync fault tests');
const it = itUnless(postgres.skip);

describe('scanners syncing with the scanner SDK while PostgreSQL is cut', () => {
  let proxy: FaultProxy;
  let server: RunningServer;
  let dropDatabase: (() => Promise<void>) | null = null;
  const dirs: string[] = [];

  before(async () => {
    if (postgres.skip) return;
    const database = await freshDatabase();
    dropDatabase = database.drop;
    proxy = await FaultProxy.start({ host: '127.0.0.1', port: 5432 });
    const url = new URL(database.url);
    url.host = `127.0.0.1:${proxy.port}`;
    const port = await freePort();
    server = await startServer({
      PORT: String(port),
      BASE_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: url.toString(),
      ADMIN_TOKEN: ADMIN,
      REQUEST_TIMEOUT_S: '6',
      RATE_LIMIT_CHECKIN_PER_KEY: '100000',
      RATE_LIMIT_ENROLL_PER_IP: '1000',
      LOG_LEVEL: 'warn',
    });
  });
  after(async () => {
    if (postgres.skip) return;
    await server?.stop();
    await proxy?.close();
    await dropDatabase?.();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('20 devices sync their offline queues through a 10 s cut: every scan is answered once, no ticket valid twice, nothing refused', async () => {
    // Fewer tickets than scans: gates see the same tickets, so double scans and conflicts happen too.
    const { eid, tickets } = await eventWithTickets(server.url, ADMIN, 'Sync through a cut', 2000);
    const tokens = tickets.map((t) => t.ticket_token);
    const devices: Scanner[] = [];
    const transports = Array.from({ length: SCANNERS }, () => nodeHttpTransport());
    for (let s = 0; s < SCANNERS; s += 1) {
      const dir = tempDir('fault-scanner-');
      dirs.push(dir);
      const storage = await FsStorage.create(join(dir, 'state'));
      const token = await call(`${server.url}/admin/v1/events/${eid}/enrollment-tokens`, { bearer: ADMIN, body: {} });
      await enroll(storage, String(token.body.setup_uri), { name: `Gate ${s + 1}`, transport: transports[s]! });
      const scanner = await Scanner.open(storage, { transport: transports[s]! });
      const mine = Array.from({ length: PER_SCANNER }, (_, i) => tokens[(s * 97 + i * 13) % tokens.length]!);
      await scanner.scan(mine, { offline: true });
      devices.push(scanner);
    }

    proxy.set('reset');
    const syncs: SyncResult[][] = devices.map(() => []);
    const deadline = Date.now() + 60_000;
    const syncing = Promise.all(
      devices.map(async (scanner, d) => {
        // As a device does: sync, and again after a pause while scans remain.
        for (;;) {
          const result = await scanner.sync();
          syncs[d]!.push(result);
          if (result.remaining === 0 || Date.now() > deadline) return;
          await sleep(500);
        }
      }),
    );
    await sleep(5000);
    proxy.set('hang');
    await sleep(5000);
    proxy.set('pass');
    await syncing;

    const last = syncs.map((runs) => runs.at(-1)!);
    assert.deepEqual(
      last.map((r) => r.remaining),
      devices.map(() => 0),
      'every queue emptied',
    );
    assert.ok(
      syncs.some((runs) => runs.length > 1),
      'the cut was felt: some device had to sync again',
    );
    const total = (pick: (r: SyncResult) => number) => syncs.flat().reduce((sum, r) => sum + pick(r), 0);
    assert.equal(
      total((r) => r.refused),
      0,
      'no scan was refused for good',
    );
    assert.equal(
      total((r) => r.uploaded),
      SCANNERS * PER_SCANNER,
    );

    const rows = (await scanLog(server.url, ADMIN, eid)).filter((row) => !row.replay);
    assert.equal(rows.length, SCANNERS * PER_SCANNER, 'every scan is in the scan log exactly once');
    assert.equal(new Set(rows.map((row) => row.idempotency_key)).size, rows.length);
    const valid = rows.filter((row) => row.outcome === 'valid').map((row) => row.tid);
    assert.equal(new Set(valid).size, valid.length, 'no ticket is valid twice');
    // A 503 (a statement over its bound on a busy machine) is an answer a client retries, as here.
    let event = await call(`${server.url}/admin/v1/events/${eid}`, { bearer: ADMIN });
    for (let tries = 1; event.status === 503 && tries < 10; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      event = await call(`${server.url}/admin/v1/events/${eid}`, { bearer: ADMIN });
    }
    assert.equal(event.status, 200, event.text);
    const counters = event.body.counters as { checked_in: number };
    assert.equal(counters.checked_in, valid.length);
    assert.equal(
      total((r) => r.outcomes.valid),
      valid.length,
      'what the devices were told is what the store holds',
    );
    await Promise.all(devices.map((scanner) => scanner.close()));
    for (const transport of transports) transport.close();
  });
});
