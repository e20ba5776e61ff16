import assert from 'node:assert/strict';
import fc from 'fast-check';
import { eachBackend } from '../helpers/backends.ts';
import { agrees, runHistory, story, withoutAutoExitWorker } from './check.ts';
import { historyArb, ISSUER_ENV } from './generator.ts';

/**
 * The differential test (CONTRACT.md, fifth release, "One truth for a holder"): after random histories
 * of online and offline entries and exits, undos (online, queued, by the organizer), late uploads,
 * automatic exits and rule changes, a device that has just synced answers a scan offline exactly as the
 * issuer answers the same scan online at the same moment (outcome, reason, `entries`), and the issuer's
 * presence, entries, occupancy, counters, feed and scan log agree. A bounded run here; `npm run bench`
 * runs long ones (bench/differential.ts). `DIFFERENTIAL_SEED` replays a run, `DIFFERENTIAL_RUNS` sets
 * its length, `DIFFERENTIAL_KINDS` the kinds of step (generator.ts).
 */
const RUNS = Number(process.env.DIFFERENTIAL_RUNS ?? 60);
const MAX_STEPS = Number(process.env.DIFFERENTIAL_STEPS ?? 16);
const SEED = process.env.DIFFERENTIAL_SEED === undefined ? undefined : Number(process.env.DIFFERENTIAL_SEED);

await eachBackend(
  'a synced device answers every scan as the issuer does',
  ({ it, issuer }) => {
    it(`after ${RUNS} random histories of up to ${MAX_STEPS} steps`, async () => {
      await fc.assert(
        fc.asyncProperty(historyArb(MAX_STEPS), async (history) => {
          const outcome = await runHistory(issuer(), history);
          assert.ok(agrees(outcome), story(history, outcome));
        }),
        { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), includeErrorInReport: true },
      );
    });
  },
  { wrapStore: withoutAutoExitWorker, env: ISSUER_ENV },
);
