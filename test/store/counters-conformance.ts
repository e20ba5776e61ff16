import assert from 'node:assert/strict';
import { describe } from 'node:test';
import type { CheckInAttempt, Store } from '../../src/store/store.ts';
import { keptCounts, recount, runCounterMix } from './counters-mix.ts';

/** What the main conformance suite lends to this part of it. */
export interface CountersSuiteContext {
  test: (title: string, fn: () => Promise<void>) => void;
  store: () => Store;
  newAttempt: (eid: string, tid: string) => CheckInAttempt;
}

/** The console's counts, kept with each change: part of the one conformance suite. */
export function countersConformance(c: CountersSuiteContext): void {
  describe('kept counts', () => {
    c.test(
      'counters, occupancy, arrivals and the conflicts report equal a recount after check-ins, exits, re-entries, revocations, double scans and conflicts',
      async () => {
        const { eids, turnedAway } = await runCounterMix(c.store(), c.newAttempt('', '').api_key_id);
        for (const eid of eids) {
          const kept = await keptCounts(c.store(), eid);
          assert.deepEqual(kept, await recount(c.store(), eid, turnedAway));
          assert.ok(kept.counters.conflicts > 0 && kept.counters.checked_in > 0 && kept.counters.revoked > 0);
          assert.ok(kept.occupancy.gates.some((g) => g.exits > 0));
        }
      },
    );
  });
}
