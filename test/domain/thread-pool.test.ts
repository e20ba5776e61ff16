import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { getPriority } from 'node:os';
import { describe, it } from 'node:test';
import { ThreadPool } from '../../src/domain/thread-pool.ts';

// A job answers the nice value of the thread that ran it (its own id read as the pool's prelude reads it).
const SOURCE = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', () => {
  const thread = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  parentPort.postMessage({ value: require('node:os').getPriority(thread) });
});
`;

const pool = (nice?: number) =>
  new ThreadPool<null, number>({
    size: 1,
    source: SOURCE,
    busy: () => new Error('busy'),
    what: 'the job',
    ...(nice === undefined ? {} : { nice }),
  });

describe(
  'a thread pool for background work',
  { skip: !existsSync('/proc/thread-self') && 'threads have no nice value of their own here' },
  () => {
    it('runs its threads at the nice value asked for, and leaves the event loop’s own as it was', async () => {
      const before = getPriority();
      const background = pool(19);
      const normal = pool();
      try {
        assert.equal(await background.run(null), 19);
        assert.equal(await normal.run(null), before);
        assert.equal(getPriority(), before);
      } finally {
        await background.close();
        await normal.close();
      }
    });
  },
);
