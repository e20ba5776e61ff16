/**
 * Entry rules. Check-in through the HTTP app (in process, app.inject; SQLite on a temporary file,
 * every commit durable, then a fresh PostgreSQL database when one answers) of tickets whose type
 * declares every rule (valid days, hours, max entries, max per day, time between entries, re-entry,
 * attention, a check-in text), against the same run's check-ins of an event without ticket types:
 * the ratio is what the rules cost a check-in (target: at least 0.9). Two pairs: re-entry `none`
 * (the check-in batches of PostgreSQL) and re-entry after an exit (the path that reads the holder's
 * presence), each against an event alike without types. Rounds alternate so both see the same machine.
 *
 * Run: node --import tsx bench/entry-rules.ts [check-ins per round]   (default 3000). Prints tables; never fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventDayOf } from '@ticket-issuer/protocol';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../src/store/store.ts';
import { admin, type App, appOn, benchConfig, checkIns, eventWith, json } from './inject.ts';
import { freshPostgres } from './processes.ts';

const PER_ROUND = Number(process.argv[2] ?? 3000);
const ROUNDS = 4;
const config = benchConfig();
const dir = mkdtempSync(join(tmpdir(), 'issuer-bench-rules-'));

const hhmm = (date: Date) => date.toISOString().slice(11, 16);

/** The event's settings, and (with `reentry` set) a GA type declaring every rule, now inside all of them. */
async function withRules(app: App, eid: string, reentry: boolean, typeReentry: 'none' | 'after_exit' | null) {
  // The event day started 12 hours ago (UTC), so that now is in its middle and inside its hours.
  const start = new Date(Date.now() - 12 * 3600_000);
  const calendar = { timezone: 'UTC', day_starts_at: `${hhmm(start).slice(0, 2)}:00` };
  await json(
    app.inject({ method: 'PATCH', url: `/admin/v1/events/${eid}`, headers: admin, payload: { reentry, ...calendar } }),
  );
  if (typeReentry === null) return;
  const untilHour = (Number(calendar.day_starts_at.slice(0, 2)) + 23) % 24;
  await json(
    app.inject({
      method: 'PUT',
      url: `/admin/v1/events/${eid}/ticket-types/GA`,
      headers: admin,
      payload: {
        valid_days: [eventDayOf(new Date(), calendar)],
        hours: { from: calendar.day_starts_at, until: `${String(untilHour).padStart(2, '0')}:00` },
        max_entries: 5,
        max_entries_per_day: 3,
        reentry: typeReentry,
        min_minutes_between_entries: 10,
        attention: true,
        checkin_text: 'Check the wristband',
      },
    }),
  );
}

async function rulesCost(store: Store, reentry: boolean) {
  const app = await appOn(config, store);
  const plain = await eventWith(app, PER_ROUND * ROUNDS, null);
  const ruled = await eventWith(app, PER_ROUND * ROUNDS, null);
  await withRules(app, plain.eid, reentry, null);
  await withRules(app, ruled.eid, reentry, reentry ? 'after_exit' : 'none');
  const ratios: number[] = [];
  const rates = { plain: [] as number[], ruled: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    const slice = (t: { tids: string[] }) => t.tids.slice(round * PER_ROUND, (round + 1) * PER_ROUND);
    const a = await checkIns(app, plain, slice(plain));
    const b = await checkIns(app, ruled, slice(ruled));
    rates.plain.push(a);
    rates.ruled.push(b);
    ratios.push(b / a);
  }
  await app.close();
  return { ratios, rates };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
const rows: string[] = [];
async function measure(name: string, open: () => Promise<{ store: Store; done: () => Promise<void> } | null>) {
  for (const reentry of [false, true]) {
    const opened = await open();
    if (opened === null) {
      rows.push(`| ${name} | ${reentry ? 'after exit' : 'none'} | skipped: no PostgreSQL answered | | | |`);
      continue;
    }
    const { ratios, rates } = await rulesCost(opened.store, reentry);
    await opened.done();
    rows.push(
      `| ${name} | ${reentry ? 'after exit' : 'none'} | ${ratios.map((r) => r.toFixed(2)).join(', ')} | ${median(ratios).toFixed(2)} | ${Math.round(median(rates.plain))} | ${Math.round(median(rates.ruled))} |`,
    );
  }
}

let files = 0;
await measure('SQLite', async () => {
  const store = new SqliteStore(join(dir, `rules-${files++}.db`));
  return { store, done: () => store.close() };
});
await measure('PostgreSQL', async () => {
  const database = await freshPostgres();
  if (!database) return null;
  const store = await PostgresStore.open(database.url);
  return {
    store,
    done: async () => {
      await store.close();
      await database.drop();
    },
  };
});
rmSync(dir, { recursive: true, force: true });

process.stdout.write(
  [
    '',
    `Check-in with every entry rule declared against none (16 at a time, ${ROUNDS} rounds of ${PER_ROUND}, target ≥ 0.9):`,
    '',
    '| store | re-entry | ruled/plain per round | median | plain/s | ruled/s |',
    '|---|---|---|---:|---:|---:|',
    ...rows,
    '',
  ].join('\n'),
);
