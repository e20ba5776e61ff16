import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GroupCommit } from '../../src/store/sqlite/group-commit.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { WalSync } from '../../src/store/sqlite/wal-sync.ts';
import { testIssuer } from '../helpers/app.ts';
import { assertMixedBatchAnswered } from '../helpers/mixed-batch.ts';
import { seededSqlite } from './seeded-store.ts';

function table() {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (v INTEGER NOT NULL)');
  return db;
}

describe('group commit on SQLite', () => {
  it('units queued in one turn share one transaction; each resolves with its own result', async () => {
    const db = table();
    const group = new GroupCommit(db);
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => group.run(() => insert.run(i).changes)));
    assert.deepEqual(results, Array(25).fill(1));
    assert.equal(group.committedGroups, 1, 'one commit for the group');
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n, 25);
    await group.run(() => insert.run(99));
    assert.equal(group.committedGroups, 2, 'a later unit is a group of its own');
  });

  it('a unit that throws rolls back only its own work; its neighbours commit', async () => {
    const db = table();
    const group = new GroupCommit(db);
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const outcomes = await Promise.allSettled([
      group.run(() => insert.run(1)),
      group.run(() => {
        insert.run(2);
        throw new Error('refused');
      }),
      group.run(() => insert.run(3)),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(db.prepare('SELECT v FROM t ORDER BY v').pluck().all(), [1, 3]);
  });

  it('units run without savepoints: one refused before it writes, or whose write fails, leaves its neighbours as they ran', async () => {
    const db = table();
    db.exec('CREATE UNIQUE INDEX t_v ON t (v)');
    const group = new GroupCommit(db);
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const runs = [0, 0, 0, 0];
    const outcomes = await Promise.allSettled([
      group.run(() => ((runs[0]! += 1), insert.run(1))),
      group.run(() => {
        runs[1]! += 1;
        throw new Error('refused by its decision');
      }),
      // A statement that fails changes nothing (SQLite undoes it): nothing of this unit to undo.
      group.run(() => ((runs[2]! += 1), insert.run(1))),
      group.run(() => ((runs[3]! += 1), insert.run(3))),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'rejected', 'fulfilled'],
    );
    assert.match(String((outcomes[2] as PromiseRejectedResult).reason), /UNIQUE/);
    assert.deepEqual(runs, [1, 1, 1, 1], 'each unit ran once');
    assert.equal(group.groupsRunAgain, 0);
    assert.deepEqual(db.prepare('SELECT v FROM t ORDER BY v').pluck().all(), [1, 3]);
  });

  it('a unit that throws after writing makes its group run again, each unit in a savepoint; the group’s members count it once', async () => {
    const db = table();
    db.exec('CREATE UNIQUE INDEX t_v ON t (v)');
    const told: string[] = [];
    const kept: number[] = [];
    let unit = 0;
    const member = {
      beginGroup: () => told.push('begin'),
      beginUnit: () => (unit = 0),
      keepUnit: () => kept.push(unit),
      dropUnit: () => told.push('drop'),
      flush: () => told.push(`flush ${kept.splice(0).join(',')}`),
      end: () => (told.push('end'), kept.splice(0)),
    };
    const group = new GroupCommit(db, undefined, member);
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const runs = [0, 0, 0];
    const outcomes = await Promise.allSettled([
      group.run(() => ((runs[0]! += 1), (unit = 1), insert.run(1))),
      group.run(() => {
        runs[1]! += 1;
        insert.run(2);
        throw new Error('refused after a write');
      }),
      group.run(() => ((runs[2]! += 1), (unit = 4), insert.run(4))),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /refused after a write/);
    assert.deepEqual(runs, [2, 2, 1], 'the units up to the one that wrote ran again, the rest once');
    assert.equal(group.groupsRunAgain, 1);
    assert.equal(group.committedGroups, 1);
    assert.deepEqual(db.prepare('SELECT v FROM t ORDER BY v').pluck().all(), [1, 4]);
    // The first attempt ended unwritten; the second kept the units that committed, once each.
    assert.deepEqual(told, ['begin', 'drop', 'end', 'begin', 'drop', 'flush 1,4']);
  });

  it('no unit is answered before the commit is durable; a failed fsync fails the whole group', async () => {
    const db = table();
    let release!: (ok: boolean) => void;
    const durable = () =>
      new Promise<void>((resolve, reject) => (release = (ok) => (ok ? resolve() : reject(new Error('EIO')))));
    const group = new GroupCommit(db, durable);
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    let answered = 0;
    const first = Promise.all([1, 2].map((v) => group.run(() => insert.run(v)).then(() => (answered += 1))));
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(group.committedGroups, 1, 'committed');
    assert.equal(answered, 0, 'but nobody is answered before the fsync');
    release(true);
    await first;
    const second = Promise.allSettled([group.run(() => insert.run(3)), group.run(() => insert.run(4))]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    release(false);
    assert.deepEqual(
      (await second).map((o) => o.status),
      ['rejected', 'rejected'],
    );
  });

  it('units that arrive while a group’s fsync runs wait for it and then commit together', async () => {
    const db = table();
    const releases: ((ok: boolean) => void)[] = [];
    const durable = () =>
      new Promise<void>((resolve, reject) => releases.push((ok) => (ok ? resolve() : reject(new Error('EIO')))));
    const group = new GroupCommit(db, durable);
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
    const answered: number[] = [];
    const first = group.run(() => insert.run(1)).then(() => answered.push(1));
    await tick();
    assert.equal(group.committedGroups, 1);
    // Three units, each in a later turn of the event loop, while the first fsync runs.
    const later: Promise<unknown>[] = [];
    for (const v of [2, 3, 4]) {
      later.push(group.run(() => insert.run(v)).then(() => answered.push(v)));
      await tick();
    }
    assert.equal(group.committedGroups, 1, 'nothing more is committed while the fsync runs');
    assert.equal(releases.length, 1);
    releases[0]!(true);
    await first;
    await tick();
    assert.equal(group.committedGroups, 2, 'the three waiting units are one group');
    assert.deepEqual(answered, [1], 'and none of them is answered before its own fsync');
    assert.deepEqual(db.prepare('SELECT v FROM t ORDER BY v').pluck().all(), [1, 2, 3, 4]);
    // A failed fsync fails its group and lets the next one through.
    const failing = group.run(() => insert.run(5));
    await tick();
    releases[1]!(true);
    await Promise.all(later);
    assert.deepEqual(answered, [1, 2, 3, 4]);
    await tick();
    releases[2]!(false);
    await assert.rejects(failing, /EIO/);
    const after = group.run(() => insert.run(6));
    await tick();
    assert.equal(group.committedGroups, 4, 'the next unit is not held back by the failed fsync');
    releases[3]!(true);
    await after;
  });

  it('fsyncs asked for while one runs share the next one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wal-sync-'));
    writeFileSync(join(dir, 'x-wal'), 'frames');
    const wal = new WalSync(join(dir, 'x-wal'));
    await Promise.all(Array.from({ length: 20 }, () => wal.sync()));
    assert.equal(wal.syncs, 2, 'the first, and one for all who came while it ran');
    await wal.settled();
    await wal.close();
    await assert.rejects(new WalSync(join(dir, 'missing-wal')).sync(), /ENOENT/);
    rmSync(dir, { recursive: true, force: true });
  });

  it('the WAL is opened once for every fsync until close; a failed open is tried again', async (t) => {
    if (!existsSync('/proc/self/fd')) return t.skip('no /proc/self/fd here to count open files');
    const dir = mkdtempSync(join(tmpdir(), 'wal-sync-'));
    const path = join(dir, 'x-wal');
    const opened = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === path;
        } catch {
          return false; // the directory's own descriptor, closed while it was read
        }
      }).length;
    const wal = new WalSync(path);
    await assert.rejects(wal.sync(), /ENOENT/, 'no WAL yet');
    writeFileSync(path, 'frames');
    for (let i = 0; i < 5; i++) await wal.sync();
    assert.equal(wal.syncs, 6);
    assert.equal(opened(), 1, 'one descriptor, kept from one fsync to the next');
    await wal.close();
    assert.equal(opened(), 0, 'closed with the store');
    await assert.rejects(wal.sync(), /the store is closed/, 'no fsync after close, and no descriptor opened again');
    assert.equal(opened(), 0);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a group of check-ins keeps its savepoints’ page copies in memory, not in a temporary file', async (t) => {
    if (!existsSync('/proc/self/fd')) return t.skip('no /proc/self/fd here to see open files');
    // Enough check-ins in one group that some of them split pages and copy more than the 64 KiB
    // SQLite keeps in memory by default before it moves a savepoint's copies to a temporary file.
    const { store, tickets, attempt, scannedAt, judge, close } = await seededSqlite(600);
    try {
      // Read while the group's transaction is open, from inside each check-in's savepoint.
      const openFiles = new Set<string>();
      const seeOpenFiles = () => {
        for (const fd of readdirSync('/proc/self/fd')) {
          try {
            openFiles.add(readlinkSync(`/proc/self/fd/${fd}`));
          } catch {
            // the directory's own descriptor, closed while it was read
          }
        }
      };
      const syncsBefore = store.walSyncs!;
      const answers = await Promise.all(
        tickets.map((ticket) =>
          store.checkIns.checkIn(attempt(ticket, 'gate-a', scannedAt), (stored, gate, entries) => {
            seeOpenFiles();
            return judge(stored, gate, entries);
          }),
        ),
      );
      assert.deepEqual(
        answers.map((a) => a.kind === 'answered' && (a.answer.body as { status: string }).status),
        tickets.map(() => 'valid'),
      );
      const syncs = store.walSyncs! - syncsBefore;
      assert.ok(syncs <= 2, `the check-ins shared one commit, not ${syncs}`);
      const temporary = [...openFiles].filter((file) => file.endsWith('(deleted)'));
      assert.deepEqual(temporary, [], 'SQLite opened a temporary file during the group');
    } finally {
      await close();
    }
  });

  it('a file store syncs its WAL off the event loop: synchronous = NORMAL, one fsync per group', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wal-store-'));
    const store = new SqliteStore(join(dir, 'issuer.db'));
    const synced = store.walSyncs!;
    await Promise.all(Array.from({ length: 50 }, (_, i) => store.settings.putSetting(`n${i}`, String(i))));
    assert.ok(store.walSyncs! - synced <= 2, `${store.walSyncs! - synced} fsyncs for 50 commits of one turn`);
    assert.equal(await store.settings.getSetting('n49'), '49');
    await store.close();
    const memory = new SqliteStore(':memory:');
    assert.equal(memory.walSyncs, null, 'a memory database has no WAL to sync');
    await memory.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a file store checkpoints its WAL from a worker thread, not inside a commit, once the WAL holds 1 MiB', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wal-checkpoint-'));
    const store = new SqliteStore(join(dir, 'issuer.db'));
    for (let i = 0; i < 20; i++) await store.settings.putSetting(`k${i}`, 'x'.repeat(5000));
    // Read through a function: the assertion below would otherwise narrow the property to null.
    const worker = () => store.checkpointer;
    assert.equal(worker(), null, 'a small WAL: no worker thread yet');
    for (let i = 20; i < 300; i++) await store.settings.putSetting(`k${i}`, 'x'.repeat(5000));
    const deadline = Date.now() + 5000;
    while ((worker()?.checkpoints ?? 0) === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const started = worker();
    assert.ok(started, 'the worker started');
    assert.ok(started.checkpoints > 0, 'the worker copied the WAL into the database');
    assert.equal(started.lastError, null);
    await store.close();
    const reopened = new SqliteStore(join(dir, 'issuer.db'));
    assert.equal(await reopened.settings.getSetting('k299'), 'x'.repeat(5000));
    await reopened.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a group of check-ins with a replay, a changed body, a revoked ticket, an unknown tid and a repeated key answers each rightly', async () => {
    const t = await testIssuer();
    try {
      await assertMixedBatchAnswered(t.app);
    } finally {
      await t.close();
    }
  });
});
