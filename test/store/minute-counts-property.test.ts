import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { annulOutcome } from '@ticket-issuer/protocol';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import pg from 'pg';
import { decide, type EntryRules } from '../../src/domain/decide.ts';
import { decideExit } from '../../src/domain/decide-exit.ts';
import { withMissedAutoExit } from '../../src/domain/decide-offline.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { CheckInAttempt, Store } from '../../src/store/store.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';
import { liveKey } from './live-key.ts';
import { type AnnulJudge, reportEvent, reportTicket } from './report-counts-mix.ts';

/**
 * The report's kept exits and re-entries per minute (`minute_counts`) against the grouped reads they
 * replaced (the feed's `checked_out` changes, the counted entries made while inside), on random
 * histories of six tickets over three event days of a zone half an hour off UTC: entries and exits
 * one at a time and several at once (a batch on PostgreSQL, one group commit on SQLite), in any order
 * of scan time (uploads behind later scans, their late exits, the automatic exits they missed), the
 * days' automatic exits, annuls (the shared rule: a holder's latest entry while inside), and revocations, on each store.
 */
const RUNS = Number(process.env.MINUTE_COUNTS_RUNS ?? 25);
const MINUTE = 60_000;
const BASE = Date.parse('2026-06-01T00:00:00.000Z');
const TICKETS = 6;
/** Each attempt's own idempotency key. */
let seq = 0;
/** The day starts (06:00 in Kolkata) of the three days, in UTC. */
const DAY_STARTS = ['2026-06-01T00:30:00.000Z', '2026-06-02T00:30:00.000Z', '2026-06-03T00:30:00.000Z'];

/** The grouped reads the report made before migration 36 (param: eid). */
const EXITS_GROUPED = `SELECT substr(at, 1, 16) AS minute, COUNT(*) AS moves FROM changes
  WHERE eid = ? AND type = 'checked_out' GROUP BY substr(at, 1, 16)`;
const REPEATS_GROUPED = `SELECT substr(scanned_at, 1, 16) AS minute, COUNT(*) AS moves FROM entries
  WHERE eid = ? AND annulled_at IS NULL AND was_inside = TRUE GROUP BY substr(scanned_at, 1, 16)`;

type Query = (sql: string, eid: string) => Promise<{ minute: string; moves: number | string }[]>;
type Minutes = { minute: string; exits: number; repeats: number }[];

async function grouped(query: Query, eid: string): Promise<Minutes> {
  const minutes = new Map<string, { minute: string; exits: number; repeats: number }>();
  const add = (rows: { minute: string; moves: number | string }[], field: 'exits' | 'repeats') => {
    for (const row of rows) {
      const m = minutes.get(row.minute) ?? { minute: row.minute, exits: 0, repeats: 0 };
      m[field] += Number(row.moves);
      minutes.set(row.minute, m);
    }
  };
  add(await query(EXITS_GROUPED, eid), 'exits');
  add(await query(REPEATS_GROUPED, eid), 'repeats');
  return [...minutes.values()].sort((a, b) => (a.minute < b.minute ? -1 : 1));
}

async function kept(store: Store, eid: string): Promise<Minutes> {
  return (await store.reports.reportCounts(eid)).minutes
    .filter((m) => m.exits !== 0 || m.repeats !== 0)
    .map(({ minute, exits, repeats }) => ({ minute, exits, repeats }));
}

type Move = { kind: 'enter' | 'upload' | 'exit'; i: number; minute: number };
type Op =
  | Move
  | { kind: 'again'; i: number; minute: number; annul: boolean }
  | { kind: 'together'; moves: Move[] }
  | { kind: 'auto'; day: number }
  | { kind: 'annul'; k: number }
  | { kind: 'revoke'; k: number };

const move: fc.Arbitrary<Move> = fc.record({
  kind: fc.constantFrom('enter' as const, 'upload' as const, 'exit' as const),
  i: fc.nat(TICKETS - 1),
  minute: fc.nat(3 * 24 * 60),
});
const op: fc.Arbitrary<Op> = fc.oneof(
  move,
  fc.record({
    kind: fc.constant('again' as const),
    i: fc.nat(TICKETS - 1),
    minute: fc.nat(3 * 24 * 60),
    annul: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('together' as const), moves: fc.array(move, { minLength: 2, maxLength: 5 }) }),
  fc.record({ kind: fc.constant('auto' as const), day: fc.nat(DAY_STARTS.length - 1) }),
  fc.record({ kind: fc.constant('annul' as const), k: fc.nat(40) }),
  fc.record({ kind: fc.constant('revoke' as const), k: fc.nat(40) }),
);

async function playAndCompare(store: Store, query: Query, apiKeyId: string, ops: Op[]): Promise<void> {
  const event = { ...reportEvent(), auto_exit: true };
  await store.events.createEvent(event);
  const tickets = Array.from({ length: TICKETS }, () => reportTicket(event.eid, 'a'));
  await store.tickets.createTickets(tickets);
  const rules: EntryRules = {
    event: { timezone: event.timezone, day_starts_at: event.day_starts_at, reentry: true, auto_exit: true },
    types: [],
  };
  const now = new Date(BASE + 4 * 24 * 60 * MINUTE).toISOString();
  const entries: CheckInAttempt[] = [];
  const play = async (m: Move) => {
    const at = new Date(BASE + m.minute * MINUTE).toISOString();
    const a: CheckInAttempt = {
      eid: event.eid,
      tid: tickets[m.i]!.tid,
      idempotency_key: `k-${(seq += 1)}`,
      fingerprint: `fp:${seq}`,
      api_key_id: apiKeyId,
      scanner_id: 'scanner-1',
      gate_id: m.minute % 2 === 0 ? 'gate-a' : null,
      scanned_at: at,
      received_at: m.kind === 'upload' ? now : at,
      admitted_offline: m.kind === 'upload' ? true : null,
    };
    if (m.kind === 'exit') {
      await store.checkIns.checkOut(a, (t, presence) => decideExit(t, a.eid, at, null, null, presence, rules.event));
      return;
    }
    entries.push(a);
    await store.checkIns.checkInWithPresence(a, (t, presence, gate, before) => {
      const verdict = decide(t, a.eid, at, null, null, { gate, presence, entries: before }, rules, a.admitted_offline);
      return m.kind === 'upload' ? withMissedAutoExit(verdict, before, at, now, rules.event) : verdict;
    });
  };
  const rule: AnnulJudge = (seen) => annulOutcome({ isEntry: seen.isEntry, latest: seen.latest, withinWindow: true });
  const annul = (a: CheckInAttempt, judge = rule) =>
    store.checkIns.annulEntry(
      {
        eid: a.eid,
        target: { scanner_id: a.scanner_id, idempotency_key: a.idempotency_key },
        annulled_at: now,
        received_at: now,
      },
      judge,
    );
  for (const o of ops) {
    if (o.kind === 'together') await Promise.all(o.moves.map(play));
    else if (o.kind === 'again') {
      // In, out two minutes later, and an entry between them uploaded after (behind the exit: a
      // re-entry), annulled or not. The shared rule never lets it be annulled (the holder is out): the
      // store annuls whatever its judge lets through, and this judge lets any counted entry through.
      await play({ kind: 'enter', i: o.i, minute: o.minute });
      await play({ kind: 'exit', i: o.i, minute: o.minute + 2 });
      await play({ kind: 'upload', i: o.i, minute: o.minute + 1 });
      if (o.annul) await annul(entries[entries.length - 1]!, (seen) => (seen.isEntry ? 'annulled' : 'not_an_entry'));
    } else if (o.kind === 'auto') {
      await store.checkIns.runAutoExit({
        eid: event.eid,
        day: DAY_STARTS[o.day]!.slice(0, 10),
        at: DAY_STARTS[o.day]!,
        now,
      });
    } else if (o.kind === 'revoke') await store.tickets.revokeTicket(tickets[o.k % TICKETS]!.tid, now, null);
    else if (o.kind === 'annul') {
      // Half of them a ticket's entry latest by scan time, which the rule lets through while the holder is inside.
      const ofTicket = entries.filter((e) => e.tid === tickets[o.k % TICKETS]!.tid);
      const latest = ofTicket.reduce<CheckInAttempt | undefined>(
        (l, e) => (l && l.scanned_at > e.scanned_at ? l : e),
        undefined,
      );
      const a = o.k % 2 === 0 ? latest : entries[o.k % Math.max(entries.length, 1)];
      if (a === undefined) continue;
      await annul(a);
    } else await play(o);
  }
  assert.deepEqual(await kept(store, event.eid), await grouped(query, event.eid));
}

const pgAvailability = await postgresAvailability('minute counts property on PostgreSQL');

interface Opened {
  store: Store;
  query: Query;
  close: () => Promise<void>;
}

describe('the kept exits and re-entries per minute equal the grouped reads after random histories', () => {
  const stores: { name: string; open: () => Promise<Opened>; skip?: string }[] = [
    {
      name: 'SQLite',
      open: async () => {
        const dir = mkdtempSync(join(tmpdir(), 'minute-counts-'));
        const store = new SqliteStore(join(dir, 'issuer.db'));
        const reader = new Database(join(dir, 'issuer.db'), { readonly: true });
        return {
          store,
          query: async (sql, eid) => reader.prepare(sql).all(eid) as { minute: string; moves: number }[],
          close: async () => {
            reader.close();
            await store.close();
            rmSync(dir, { recursive: true, force: true });
          },
        };
      },
    },
    {
      name: 'PostgreSQL',
      skip: pgAvailability.skip,
      open: async () => {
        if (pgAvailability.problem !== null) assert.fail(`PostgreSQL is required: ${pgAvailability.problem}`);
        const database = await freshDatabase();
        const store = await PostgresStore.open(database.url);
        const reader = new pg.Pool({ connectionString: database.url, max: 1 });
        return {
          store,
          query: async (sql, eid) => (await reader.query(sql.replace('?', '$1'), [eid])).rows,
          close: async () => {
            await reader.end();
            await store.close();
            await database.drop();
          },
        };
      },
    },
  ];
  for (const s of stores) {
    describe(s.name, () => {
      let opened: Opened | null = null;
      let apiKeyId = '';
      before(async () => {
        if (s.skip !== undefined) return;
        opened = await s.open();
        apiKeyId = await liveKey(opened.store);
      });
      after(async () => opened?.close());
      itUnless(s.skip)('exits and re-entries per minute', async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), (ops) =>
            playAndCompare(opened!.store, opened!.query, apiKeyId, ops),
          ),
          { numRuns: RUNS },
        );
      });
    });
  }
});
