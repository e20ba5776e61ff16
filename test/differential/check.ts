/**
 * One history, run and judged: its world made, its steps replayed, the issuer's consistency checked,
 * the probe made, and everything that disagrees reported with the history and what each step answered,
 * so that a counterexample reads as a story.
 */
import type { Store } from '../../src/store/store.ts';
import type { TestIssuer } from '../helpers/app.ts';
import { issuerInconsistencies } from './consistency.ts';
import { enabledSwitches, type Switch } from './generator.ts';
import type { History } from './history.ts';
import { disagrees, probe, type ProbeRow, syncAll } from './probe.ts';
import { runStep } from './runner.ts';
import { closeWorld, openWorld } from './world.ts';

/** The stores behind the apps: the app's sees no automatic-exit work, this test's runs it. */
const ownStores = new WeakMap<Store, Store>();

/**
 * The store as the app sees it: the automatic-exit worker finds no event, so that the exit happens
 * exactly when a history says the worker looks (`runWorker` uses the store itself).
 */
export function withoutAutoExitWorker(store: Store): Store {
  const checkIns = new Proxy(store.checkIns, {
    get(target, name, receiver) {
      if (name === 'listAutoExitEvents') return async () => [];
      const value = Reflect.get(target, name, receiver) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const seen = new Proxy(store, {
    get(target, name, receiver) {
      if (name === 'checkIns') return checkIns;
      const value = Reflect.get(target, name, receiver) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  ownStores.set(seen, store);
  return seen;
}

/** What a history came to. */
export interface Outcome {
  /** Each step and its answer. */
  said: string[];
  /** The issuer's inconsistencies after the history and the devices' last uploads, and after the probe. */
  before: string[];
  after: string[];
  rows: ProbeRow[];
  /** The probe's rows where a device and the issuer disagree. */
  disagreements: ProbeRow[];
}

/** Runs a history on the issuer (built over `withoutAutoExitWorker`) under the run's switches. */
export async function runHistory(
  t: TestIssuer,
  history: History,
  on: ReadonlySet<Switch> = enabledSwitches(),
): Promise<Outcome> {
  const store = ownStores.get(t.store) ?? t.store;
  const world = await openWorld(t, store, history);
  try {
    const said: string[] = [];
    for (const step of history.steps) said.push(`${JSON.stringify(step)} -> ${await runStep(world, step, on)}`);
    const synced = await syncAll(world);
    const before = await issuerInconsistencies(world);
    const rows = await probe(world, synced);
    const after = await issuerInconsistencies(world);
    return { said, before, after, rows, disagreements: rows.filter(disagrees) };
  } finally {
    await closeWorld(world);
  }
}

/** Whether the device and the issuer agree and the issuer agrees with itself. */
export const agrees = (outcome: Outcome) =>
  outcome.disagreements.length === 0 && outcome.before.length === 0 && outcome.after.length === 0;

/** A failing history's story: the history, what each step answered, and what disagreed. */
export function story(history: History, outcome: Outcome): string {
  const row = (r: ProbeRow) =>
    `  ticket ${r.ticket} on ${r.device}: offline ${JSON.stringify(r.offline)}, online ${JSON.stringify(r.online)}`;
  return [
    `history: ${JSON.stringify(history)}`,
    'steps:',
    ...outcome.said.map((s) => `  ${s}`),
    ...(outcome.before.length ? ['the issuer disagrees with itself after the history:', ...outcome.before] : []),
    ...(outcome.after.length ? ['the issuer disagrees with itself after the probe:', ...outcome.after] : []),
    ...(outcome.disagreements.length ? ['device and issuer disagree:', ...outcome.disagreements.map(row)] : []),
  ].join('\n');
}
