import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { GroupCommit } from '../../src/store/sqlite/group-commit.ts';
import { testIssuer } from '../helpers/app.ts';
import { assertMixedBatchAnswered } from '../helpers/mixed-batch.ts';

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

  it('a group of check-ins with a replay, a changed body, a revoked ticket, an unknown tid and a repeated key answers each rightly', async () => {
    const t = await testIssuer();
    try {
      await assertMixedBatchAnswered(t.app);
    } finally {
      await t.close();
    }
  });
});
