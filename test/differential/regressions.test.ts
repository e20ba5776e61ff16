import assert from 'node:assert/strict';
import { it } from 'node:test';
import { eachBackend } from '../helpers/backends.ts';
import { agrees, runHistory, story, withoutAutoExitWorker } from './check.ts';
import { ENABLED, ISSUER_ENV } from './generator.ts';
import { REGRESSIONS } from './regressions.ts';

/**
 * The differential test's named histories (regressions.ts), each run as the random run would run it,
 * on both stores: the device that has just synced and the issuer answer alike, and the issuer agrees
 * with itself. A known disagreement is marked todo with its diagnosis until its fix lands.
 */
await eachBackend(
  'named histories: a synced device and the issuer tell one truth',
  ({ skip, issuer }) => {
    for (const regression of REGRESSIONS) {
      const todo = regression.known === undefined ? false : `known disagreement: ${regression.known}`;
      it(regression.name, { skip: skip ?? false, todo }, async () => {
        const on = new Set([...ENABLED, ...regression.switches]);
        const outcome = await runHistory(issuer(), regression.history, on);
        assert.ok(agrees(outcome), story(regression.history, outcome));
      });
    }
  },
  { wrapStore: withoutAutoExitWorker, env: ISSUER_ENV },
);
