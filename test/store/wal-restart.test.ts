import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { Checkpointer, DRAIN_HOLD_MS, DRAIN_TIMEOUT_MS } from '../../src/store/sqlite/checkpointer.ts';
import { GroupCommit } from '../../src/store/sqlite/group-commit.ts';
import { checkInAll, seededSqlite } from './seeded-store.ts';

describe('the WAL restarts under a steady load (SQLite)', () => {
  it('a hold keeps groups from beginning until it ends; the units queued meanwhile form one group', async () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (v INTEGER NOT NULL)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const group = new GroupCommit(db);
    let release!: () => void;
    group.hold(() => new Promise<void>((resolve) => (release = resolve)));
    let settled = 0;
    const units = Array.from({ length: 10 }, (_, i) => group.run(() => insert.run(i)).then(() => (settled += 1)));
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(settled, 0, 'nothing commits while held');
    assert.equal(group.committedGroups, 0);
    release();
    await Promise.all(units);
    assert.equal(group.committedGroups, 1, 'the queued units commit together once the hold ends');
    // A hold whose task fails releases all the same.
    group.hold(() => Promise.reject(new Error('the worker is gone')));
    await group.run(() => insert.run(99));
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n, 11);
  });

  it('a drain whose pass does not end within its hold gives up; the next holds twice as long, and one that ends in time resets it', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'drain-hold-'));
    const path = join(dir, 'issuer.db');
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (v INTEGER NOT NULL)');
    db.prepare('INSERT INTO t (v) VALUES (1)').run();
    // The worker's own ticks never run here: only the drains the test asks for.
    const checkpointer = new Checkpointer(path, () => assert.fail('the worker failed'), { intervalMs: 3_600_000 });
    // The worker does not keep the process alive (a server does): this does, while answers are awaited.
    const alive = setInterval(() => undefined, 1_000);
    try {
      // The store's clock is the test's: a hold ends when the test says, before the worker can answer.
      t.mock.timers.enable({ apis: ['setTimeout'] });
      const holds: number[] = [];
      for (let attempt = 0; attempt < 7; attempt++) {
        holds.push(checkpointer.holdMs);
        const drain = checkpointer.drain();
        t.mock.timers.tick(checkpointer.holdMs);
        assert.equal(await drain, false, 'the hold gave up: commits go on');
        // The worker still owes that pass's answer: no second drain is asked for meanwhile.
        assert.equal(await checkpointer.drain(), false);
        await passAnswered(checkpointer);
      }
      assert.equal(DRAIN_HOLD_MS, 10);
      assert.deepEqual(holds, [10, 20, 40, 80, 160, DRAIN_TIMEOUT_MS, DRAIN_TIMEOUT_MS]);
      assert.equal(checkpointer.drains, 0);
      // A pass answered within its hold: the WAL drained, and the next hold is short again.
      assert.equal(await checkpointer.drain(), true);
      assert.equal(checkpointer.drains, 1);
      assert.equal(checkpointer.holdMs, DRAIN_HOLD_MS);
    } finally {
      t.mock.timers.reset();
      clearInterval(alive);
      await checkpointer.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('steady check-ins keep the WAL near its restart size, and every one is kept', async () => {
    const count = 4_000;
    // Small sizes and a fast pace, so that a few thousand check-ins cross them many times.
    const seeded = await seededSqlite(count, { checkpoints: { intervalMs: 10, restartFrames: 256, drainFrames: 64 } });
    const { store, file } = seeded;
    try {
      const largestWal = await checkInAll(seeded, 25, 100);
      const checkpointer = store.checkpointer!;
      // Each check-in writes about six pages (24 KiB of WAL): without restarts the WAL would pass 90 MiB.
      assert.ok(largestWal < 16 * 1024 * 1024, `the WAL reached ${(largestWal / 1048576).toFixed(1)} MiB`);
      assert.ok(checkpointer.drains > 0, 'the worker drained the WAL while check-ins went on');
      assert.equal(checkpointer.lastError, null);
      await store.close();
      const db = new Database(file, { readonly: true });
      const { n } = db.prepare('SELECT COUNT(*) AS n FROM tickets WHERE checked_in_at IS NOT NULL').get() as {
        n: number;
      };
      db.close();
      assert.equal(n, count, 'every check-in is in the database after the restarts');
    } finally {
      await seeded.close();
    }
  });
});

/** Waits until the worker has answered the pass of a drain that gave up (its answer settles nothing). */
async function passAnswered(checkpointer: Checkpointer): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (checkpointer.passRunning) {
    if (Date.now() > deadline) assert.fail('the worker never answered the pass');
    await new Promise((resolve) => setImmediate(resolve));
  }
}
