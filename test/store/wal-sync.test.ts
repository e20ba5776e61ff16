import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { WalSync } from '../../src/store/sqlite/wal-sync.ts';
import { seededSqlite } from './seeded-store.ts';

describe('the SQLite file store’s WAL: synced off the event loop, checkpointed by a worker', () => {
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
});
