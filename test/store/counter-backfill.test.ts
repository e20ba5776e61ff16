import assert from 'node:assert/strict';
import { onEachStoreFile } from '../helpers/store-files.ts';
import type { Store } from '../../src/store/store.ts';
import { keptCounts, runCounterMix } from './counters-mix.ts';
import { liveKey } from './live-key.ts';

/**
 * Migration 16 counts once what came before it: a store that ran the mix without its counter tables
 * (dropped, and the migration forgotten) migrates again on opening and reads the same counts as the
 * store that kept them with each change.
 */
const FORGET = `DROP TABLE event_counters; DROP TABLE ticket_conflicts; DROP TABLE arrival_counts;
  DELETE FROM schema_migrations WHERE version = 16;`;

async function backfillMatches(open: () => Promise<Store>, forget: () => Promise<void>): Promise<void> {
  let store = await open();
  const { eids } = await runCounterMix(store, await liveKey(store));
  const kept = await Promise.all(eids.map((eid) => keptCounts(store, eid)));
  await store.close();
  await forget();
  store = await open();
  try {
    assert.deepEqual(await Promise.all(eids.map((eid) => keptCounts(store, eid))), kept);
  } finally {
    await store.close();
  }
}

await onEachStoreFile('migration 16 counts what came before it as the stores keep it', (file) =>
  backfillMatches(file.open, () => file.exec(FORGET)),
);
