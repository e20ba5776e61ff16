import assert from 'node:assert/strict';
import { onEachStoreFile } from '../helpers/store-files.ts';
import type { Store } from '../../src/store/store.ts';
import { liveKey } from './live-key.ts';
import { keptReportCounts, recountReport, runReportMix } from './report-counts-mix.ts';

/**
 * Migrations 35 and 36 count once what came before them: a store that ran the report's mix without
 * its kept tables and entry days (dropped, migration 31's indexes back, the migrations forgotten)
 * migrates again on opening and reads the same counts, and the same moves per minute, as the store
 * that kept them with each change.
 */
const FORGET = `DROP TABLE type_counts; DROP TABLE day_holders; ALTER TABLE entries DROP COLUMN day;
  DROP TABLE minute_counts;
  CREATE INDEX entries_counted_by_time ON entries (eid, scanned_at, tid) WHERE annulled_at IS NULL;
  CREATE INDEX entries_repeats_by_time ON entries (eid, scanned_at) WHERE annulled_at IS NULL AND was_inside = TRUE;
  CREATE INDEX changes_exits_by_time ON changes (eid, at) WHERE type = 'checked_out';
  DELETE FROM schema_migrations WHERE version IN (35, 36);`;

async function backfillMatches(open: () => Promise<Store>, forget: () => Promise<void>): Promise<void> {
  let store = await open();
  const event = await runReportMix(store, await liveKey(store));
  const kept = await keptReportCounts(store, event.eid);
  assert.deepEqual(kept, await recountReport(store, event));
  const { minutes } = await store.reports.reportCounts(event.eid);
  assert.ok(minutes.some((m) => m.exits > 0));
  await store.close();
  await forget();
  store = await open();
  try {
    assert.deepEqual(await keptReportCounts(store, event.eid), kept);
    assert.deepEqual((await store.reports.reportCounts(event.eid)).minutes, minutes);
  } finally {
    await store.close();
  }
}

await onEachStoreFile(
  'migrations 35 and 36 count the report’s tickets per type, holders per day and moves per minute from what came before them',
  (file) => backfillMatches(file.open, () => file.exec(FORGET)),
);
