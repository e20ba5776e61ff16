import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pacedWhileBusy } from '../../src/delivery/mail-pace.ts';
import type { ClaimedDelivery } from '../../src/store/delivery-records.ts';

const claimed = (tid: string) => ({ tid, email: `${tid}@example.org` }) as unknown as ClaimedDelivery;

/** The times (ms after the start) at which `compose` was called for each of `count` emails asked for at once. */
async function composedAt(busy: () => boolean, count: number, intervalMs: number): Promise<number[]> {
  const start = performance.now();
  const at: number[] = [];
  const paced = pacedWhileBusy(
    async () => {
      at.push(performance.now() - start);
      return { refused: 'not sent in this test' };
    },
    { busy, intervalMs },
  );
  await Promise.all(Array.from({ length: count }, (_, i) => paced(claimed(`t${i}`))));
  return at;
}

describe('mail gives way to check-ins: emails spaced while the instance is busy', () => {
  it('while busy, each email is composed at least the interval after the one before', async () => {
    const at = await composedAt(() => true, 4, 60);
    assert.equal(at.length, 4);
    for (let i = 1; i < at.length; i++) assert.ok(at[i]! - at[i - 1]! >= 55, `gaps: ${at.join(', ')}`);
  });

  it('while not busy, none waits', async () => {
    const at = await composedAt(() => false, 4, 1000);
    assert.ok(at.at(-1)! < 500, `times: ${at.join(', ')}`);
  });

  it('what compose answers, or throws, reaches the caller unchanged', async () => {
    const paced = pacedWhileBusy(
      async (c) => {
        if (c.tid === 'bad') throw new Error('the store failed');
        return { refused: `no ${c.tid}` };
      },
      { busy: () => true, intervalMs: 1 },
    );
    assert.deepEqual(await paced(claimed('a')), { refused: 'no a' });
    await assert.rejects(paced(claimed('bad')), /the store failed/);
    assert.deepEqual(await paced(claimed('b')), { refused: 'no b' });
  });
});
