import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { FsyncThread } from '../../src/store/sqlite/fsync-thread.ts';

describe("the store's fsync thread", () => {
  const dir = mkdtempSync(join(tmpdir(), 'issuer-fsync-'));
  const fd = openSync(join(dir, 'file'), 'w');
  after(() => {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts at the first fsync, stays while fsyncs keep coming, stops once idle, and starts again', async () => {
    const thread = new FsyncThread(200);
    assert.equal(thread.running, false, 'no thread before any fsync');
    writeSync(fd, 'a');
    await thread.sync(fd);
    assert.equal(thread.running, true);
    for (let i = 0; i < 6; i++) {
      await sleep(80);
      writeSync(fd, 'b');
      await thread.sync(fd);
      assert.equal(thread.running, true, 'fsyncs closer than the idle time keep the thread');
    }
    await sleep(500);
    assert.equal(thread.running, false, 'the thread is stopped after the idle time');
    writeSync(fd, 'c');
    await thread.sync(fd);
    assert.equal(thread.running, true, 'the next fsync starts another thread');
    await sleep(500);
    assert.equal(thread.running, false);
  });

  it('fsyncs in flight when the idle time would end are all answered', async () => {
    const thread = new FsyncThread(1);
    const syncs = Array.from({ length: 50 }, () => thread.sync(fd));
    await Promise.all(syncs);
    await sleep(50);
    await Promise.all(Array.from({ length: 20 }, () => thread.sync(fd)));
  });
});
