import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
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
