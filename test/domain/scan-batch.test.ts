import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inTicketOrder } from '../../src/domain/scan-batch.ts';

/** The upload's scheduling (CONTRACT.md, "One truth for a holder": uploads): order, bound, failures. */
describe('inTicketOrder', () => {
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('runs each ticket’s scans in the order given, never more tickets at once than the bound', async () => {
    const scans = Array.from({ length: 40 }, (_, i) => ({ tid: `t${i % 10}`, n: i }));
    let running = 0;
    let most = 0;
    const seen = new Map<string, number[]>();
    const results = await inTicketOrder(
      scans,
      (s) => s.tid,
      async (s) => {
        running += 1;
        most = Math.max(most, running);
        await tick();
        seen.set(s.tid, [...(seen.get(s.tid) ?? []), s.n]);
        running -= 1;
        return s.n;
      },
      () => -1,
      3,
    );
    assert.deepEqual(
      results,
      scans.map((s) => s.n),
    );
    assert.equal(most, 3);
    for (const [tid, order] of seen)
      assert.deepEqual(
        order,
        [...order].sort((a, b) => a - b),
        tid,
      );
  });

  it('a failed scan is answered by `failed`, its ticket’s later scans too (unapplied), the others applied', async () => {
    const scans = [
      { tid: 'a', n: 0 },
      { tid: 'b', n: 1 },
      { tid: 'a', n: 2 },
      { tid: 'b', n: 3 },
    ];
    const applied: number[] = [];
    const results = await inTicketOrder(
      scans,
      (s) => s.tid,
      async (s) => {
        if (s.n === 0) throw new Error('store down for a');
        applied.push(s.n);
        return `ok ${s.n}`;
      },
      (error, s) => `failed ${s.n}: ${(error as Error).message}`,
    );
    assert.deepEqual(results, ['failed 0: store down for a', 'ok 1', 'failed 2: store down for a', 'ok 3']);
    assert.deepEqual(applied.sort(), [1, 3]);
  });
});
