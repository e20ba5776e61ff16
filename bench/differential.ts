/**
 * The differential test's long run (test/differential/): random histories of online and offline
 * entries and exits, undos, late uploads, automatic exits and rule changes for one event, then a
 * freshly synced device and the issuer answer the same scans, on SQLite (in memory) and then on a
 * fresh PostgreSQL database when one answers. `npm test` runs a few dozen histories per store; this
 * runs `DIFFERENTIAL_RUNS` (default 500) of up to `DIFFERENTIAL_STEPS` (default 30) steps each.
 * `DIFFERENTIAL_SEED` replays a run; `DIFFERENTIAL_KINDS` chooses the kinds of step (generator.ts).
 *
 * Run: node --import tsx bench/differential.ts. Prints the time per store and the seed; on a
 * disagreement, the shrunk history and what each side said, and exits 1.
 * `node --import tsx bench/differential.ts history.json` runs one history (as a failure prints it, with
 * the switches of `DIFFERENTIAL_KINDS`) on SQLite and tells its story.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../src/store/store.ts';
import { testIssuer } from '../test/helpers/app.ts';
import { agrees, runHistory, story, withoutAutoExitWorker } from '../test/differential/check.ts';
import { enabledSwitches, historyArb, ISSUER_ENV } from '../test/differential/generator.ts';
import type { History } from '../test/differential/history.ts';
import { freshPostgres } from './processes.ts';

const say = (line: string) => process.stdout.write(`${line}\n`);

const RUNS = Number(process.env.DIFFERENTIAL_RUNS ?? 500);
const STEPS = Number(process.env.DIFFERENTIAL_STEPS ?? 30);
const SEED = Number(process.env.DIFFERENTIAL_SEED ?? Date.now() % 2 ** 31);

/** Runs the property on one store; whether every history agreed. */
async function runOn(name: string, store: Store): Promise<boolean> {
  const issuer = await testIssuer({ store: withoutAutoExitWorker(store), env: ISSUER_ENV });
  const began = performance.now();
  try {
    await fc.assert(
      fc.asyncProperty(historyArb(STEPS), async (history) => {
        const outcome = await runHistory(issuer, history);
        if (!agrees(outcome)) throw new Error(story(history, outcome));
      }),
      { numRuns: RUNS, seed: SEED, includeErrorInReport: true },
    );
    const seconds = (performance.now() - began) / 1000;
    say(
      `${name}: ${RUNS} histories agree in ${seconds.toFixed(1)} s (${((seconds / RUNS) * 1000).toFixed(0)} ms each)`,
    );
    return true;
  } catch (error) {
    say(`${name}: a disagreement\n${(error as Error).message}`);
    return false;
  } finally {
    await issuer.close();
  }
}

/** Runs one history from a file and tells its story. */
async function replay(file: string): Promise<boolean> {
  const history = JSON.parse(readFileSync(file, 'utf8')) as History;
  const issuer = await testIssuer({ store: withoutAutoExitWorker(new SqliteStore(':memory:')), env: ISSUER_ENV });
  try {
    const outcome = await runHistory(issuer, history);
    say(`${agrees(outcome) ? 'agrees' : 'DISAGREES'}\n${story(history, outcome)}`);
    return agrees(outcome);
  } finally {
    await issuer.close();
  }
}

if (process.argv[2] !== undefined) {
  if (!(await replay(process.argv[2]))) process.exitCode = 1;
} else await longRun();

async function longRun(): Promise<void> {
  say(`differential: seed ${SEED}, up to ${STEPS} steps, switches ${[...enabledSwitches()].join(',')}`);
  let ok = await runOn('SQLite', new SqliteStore(':memory:'));
  const postgres = await freshPostgres();
  if (postgres === null) say('PostgreSQL: not reachable, skipped');
  else {
    try {
      ok = (await runOn('PostgreSQL', await PostgresStore.open(postgres.url))) && ok;
    } finally {
      await postgres.drop();
    }
  }
  if (!ok) process.exitCode = 1;
}
