import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  mkdtempSync,
  openSync,
  rmSync,
  statfsSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import Database from 'better-sqlite3';
import { call, enrollScanner, type RunningServer, startServer } from '../helpers/server.ts';
import { itUnless } from '../helpers/services.ts';
import { checkInAll, seededSqlite } from '../store/seeded-store.ts';

const ADMIN = 'disk-admin-token-0123456789abcdef';

/** A small tmpfs of the test's own, so that "the disk is full" is real and touches nothing else. */
function mountSmallDisk(size = '16m'): { dir: string; unmount: () => void } | { problem: string } {
  const dir = mkdtempSync(join(tmpdir(), 'issuer-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return { problem: `cannot mount a tmpfs (${(error as Error).message.split('\n')[0]}); needs root` };
  }
  return {
    dir,
    unmount: () => {
      execFileSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Fills the disk with one file until it refuses more; returns that file. */
function fillDisk(dir: string): string {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  return path;
}

const disk = mountSmallDisk();
if ('problem' in disk) process.stderr.write(`\n!!! ${disk.problem}: SQLite disk-full tests SKIPPED\n\n`);
const it = itUnless('problem' in disk ? disk.problem : undefined);

describe('SQLite on a full disk', () => {
  let server: RunningServer;
  const dir = 'problem' in disk ? '' : disk.dir;
  const dbPath = join(dir, 'issuer.db');

  before(async () => {
    if ('problem' in disk) return;
    server = await startServer({ DATABASE_URL: `sqlite:${dbPath}`, ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn' });
  });
  after(async () => {
    if ('problem' in disk) return;
    await server?.stop();
    disk.unmount();
  });

  it('on a disk with little room the WAL restarts before it takes what is left: every check-in is kept', async () => {
    const own = mountSmallDisk('64m');
    assert.ok('dir' in own, 'a disk of its own');
    const room = own.dir;
    // The disk full but for 48 MiB; check-ins in flight keep a group commit busy at every moment, so
    // that the worker's passes never catch the writer by themselves (docs/benchmark.md §21). The WAL
    // should restart from about 12 MiB: room for a worker slowed by a busy machine to lag far behind.
    const filler = fillDisk(room);
    truncateSync(filler, statSync(filler).size - 48 * 1024 * 1024);
    const free = statfsSync(room).bavail * statfsSync(room).bsize;
    const count = 4_000;
    const seeded = await seededSqlite(
      count,
      { checkpoints: { intervalMs: 10, restartFrames: 65_536, drainFrames: 64 } },
      () => [],
      room,
    );
    const { store } = seeded;
    try {
      // The worker checkpoints once the WAL has passed 1 MiB (the seed's tickets): let it start.
      while (store.checkpointer === null || store.checkpointer.checkpoints === 0) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const largestWal = await checkInAll(seeded, 5);
      // Each check-in writes about six pages: 4,000 of them, 96 MiB of WAL, had it never restarted.
      assert.ok(largestWal < free / 2, `the WAL reached ${largestWal} bytes of the ${free} the disk had left`);
    } finally {
      await seeded.close();
      own.unmount();
    }
  });

  it('answers 503 UNAVAILABLE with Retry-After, leaves nothing half-written, and serves again once space is back', async () => {
    const event = await call(`${server.url}/admin/v1/events`, {
      bearer: ADMIN,
      body: { name: 'Full disk', event_date: new Date().toISOString() },
    });
    const eid = String(event.body.eid);
    const batch = (n: number) => ({
      tickets: Array.from({ length: n }, (_, i) => ({
        holder_name: `Guest ${i} ${'x'.repeat(100)}`,
        ticket_type: 'GA',
      })),
    });
    const first = await call(`${server.url}/admin/v1/events/${eid}/tickets`, { bearer: ADMIN, body: batch(300) });
    assert.equal(first.status, 201);
    const tids = (first.body.tickets as { tid: string }[]).map((t) => t.tid);
    const scanner = await enrollScanner(server.url, ADMIN, eid);

    const filler = fillDisk(dir);
    const seen = new Map<number, number>();
    let imported = 300;
    const keys: { tid: string; idempotency_key: string; scanned_at: string }[] = [];
    for (let round = 0; round < 20; round += 1) {
      const imports = await call(`${server.url}/admin/v1/events/${eid}/tickets`, { bearer: ADMIN, body: batch(500) });
      seen.set(imports.status, (seen.get(imports.status) ?? 0) + 1);
      if (imports.status === 201) imported += 500;
      else {
        assert.equal(imports.status, 503, imports.text);
        assert.equal(imports.headers.get('retry-after'), '2');
        assert.equal((imports.body.error as { code: string }).code, 'UNAVAILABLE');
      }
      for (const tid of tids.slice(round * 10, round * 10 + 10)) {
        const scan = { tid, idempotency_key: randomUUID(), scanned_at: new Date().toISOString() };
        keys.push(scan);
        const res = await call(`${server.url}/api/v1/tickets/check-in`, {
          bearer: scanner.apiKey,
          body: { ...scan, eid, scanner_id: scanner.scannerId },
        });
        seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
        assert.ok(res.status === 200 || res.status === 503, `${res.status}: ${res.text}`);
        if (res.status === 503) assert.equal(res.headers.get('retry-after'), '2');
      }
    }
    assert.ok((seen.get(503) ?? 0) > 0, `the full disk was felt: ${JSON.stringify([...seen])}`);
    assert.equal(server.process.exitCode, null, 'the issuer still runs');

    const atFull = execFileSync('sh', ['-c', `ls -la ${dir}; df -k ${dir}`]).toString();
    unlinkSync(filler);
    const diskReport = () =>
      `the disk when full:\n${atFull}\nnow:\n${execFileSync('sh', ['-c', `ls -la ${dir}; df -k ${dir}`]).toString()}`;
    const storeErrors = () =>
      server
        .stdout()
        .split('\n')
        .filter((line) => line.includes('store unavailable'))
        .slice(-4)
        .join('\n');
    // Every scan, sent again under its key, now gets its one answer: valid once per ticket. A scanner
    // honours Retry-After: whatever SQLite still had to finish from the full disk (a checkpoint the
    // worker could not write) may take the first moments, so each scan gets the retries a device makes.
    for (const scan of keys) {
      let res = await call(`${server.url}/api/v1/tickets/check-in`, {
        bearer: scanner.apiKey,
        body: { ...scan, eid, scanner_id: scanner.scannerId },
      });
      for (let retry = 0; retry < 3 && res.status === 503; retry += 1) {
        await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after')) * 1000));
        res = await call(`${server.url}/api/v1/tickets/check-in`, {
          bearer: scanner.apiKey,
          body: { ...scan, eid, scanner_id: scanner.scannerId },
        });
      }
      if (res.status !== 200) assert.fail(`${res.status} ${res.text}\n${diskReport()}\n${storeErrors()}`);
      assert.equal(res.body.status, 'valid', `${scan.tid}: each ticket was scanned once`);
    }
    const again = await call(`${server.url}/admin/v1/events/${eid}/tickets`, { bearer: ADMIN, body: batch(500) });
    assert.equal(again.status, 201);
    imported += 500;
    const counters = (await call(`${server.url}/admin/v1/events/${eid}`, { bearer: ADMIN })).body.counters as {
      issued: number;
      checked_in: number;
    };
    assert.deepEqual(counters, { ...counters, issued: imported, checked_in: keys.length }, 'imports all or nothing');
    assert.equal((await call(`${server.url}/readyz`)).status, 200);

    await server.stop();
    const db = new Database(dbPath, { readonly: true });
    try {
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      assert.equal((db.prepare('SELECT count(*) AS n FROM tickets').get() as { n: number }).n, imported);
    } finally {
      db.close();
    }
  });
});
