import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { annulOutcome } from '@ticket-issuer/protocol';
import fc from 'fast-check';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { CheckInAttempt, Store } from '../../src/store/store.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';
import { liveKey } from './live-key.ts';
import { keptReportCounts, recountReport, reportActions, reportEvent, reportTicket } from './report-counts-mix.ts';

/**
 * The report's kept counts against a recount, on random histories: entries, exits, annuls (an
 * organizer's rule: the latest move of a holder inside) and revocations of six tickets of two types,
 * scanned at random times over three event days of a zone half an hour off UTC (in any order, so
 * uploads behind later scans are in it), on each store.
 */
const RUNS = Number(process.env.REPORT_COUNTS_RUNS ?? 25);
const MINUTE = 60_000;
/** June 1, 00:00 UTC: Kolkata's event days (from 06:00) start at 00:30 UTC. */
const BASE = Date.parse('2026-06-01T00:00:00.000Z');
const TICKETS = 6;

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('enter' as const), i: fc.nat(TICKETS - 1), minute: fc.nat(3 * 24 * 60) }),
  fc.record({ kind: fc.constant('exit' as const), i: fc.nat(TICKETS - 1), minute: fc.nat(3 * 24 * 60) }),
  fc.record({ kind: fc.constant('annul' as const), k: fc.nat(40) }),
  fc.record({ kind: fc.constant('revoke' as const), i: fc.nat(TICKETS - 1) }),
);

type Op =
  { kind: 'enter' | 'exit'; i: number; minute: number } | { kind: 'annul'; k: number } | { kind: 'revoke'; i: number };

async function playAndCompare(store: Store, apiKeyId: string, ops: Op[]): Promise<void> {
  const event = reportEvent();
  await store.events.createEvent(event);
  const tickets = Array.from({ length: TICKETS }, (_, i) => reportTicket(event.eid, i % 2 === 0 ? 'a' : 'b'));
  await store.tickets.createTickets(tickets);
  const act = reportActions(store, event, apiKeyId, tickets, (seen) =>
    annulOutcome({ isEntry: seen.isEntry, latest: seen.latest, withinWindow: true }),
  );
  const entries: CheckInAttempt[] = [];
  const at = (minute: number) => new Date(BASE + minute * MINUTE).toISOString();
  for (const o of ops) {
    if (o.kind === 'enter') entries.push(await act.enter(o.i, at(o.minute)));
    else if (o.kind === 'exit') await act.exit(o.i, at(o.minute));
    else if (o.kind === 'revoke') await store.tickets.revokeTicket(tickets[o.i]!.tid, at(5000), null);
    else if (o.kind === 'annul' && entries.length > 0) await act.annul(entries[o.k % entries.length]!, at(5000));
  }
  assert.deepEqual(await keptReportCounts(store, event.eid), await recountReport(store, event));
}

const pgAvailability = await postgresAvailability('report counts property on PostgreSQL');

describe('the report’s kept counts equal a recount after random histories', () => {
  const stores: { name: string; open: () => Promise<{ store: Store; close: () => Promise<void> }>; skip?: string }[] = [
    {
      name: 'SQLite',
      open: async () => {
        const store = new SqliteStore(':memory:');
        return { store, close: () => store.close() };
      },
    },
    {
      name: 'PostgreSQL',
      skip: pgAvailability.skip,
      open: async () => {
        if (pgAvailability.problem !== null) assert.fail(`PostgreSQL is required: ${pgAvailability.problem}`);
        const database = await freshDatabase();
        const store = await PostgresStore.open(database.url);
        return {
          store,
          close: async () => {
            await store.close();
            await database.drop();
          },
        };
      },
    },
  ];
  for (const s of stores) {
    describe(s.name, () => {
      let opened: { store: Store; close: () => Promise<void> } | null = null;
      let apiKeyId = '';
      before(async () => {
        if (s.skip !== undefined) return;
        opened = await s.open();
        apiKeyId = await liveKey(opened.store);
      });
      after(async () => opened?.close());
      itUnless(s.skip)('tickets per type and holders per event day', async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), (ops) =>
            playAndCompare(opened!.store, apiKeyId, ops),
          ),
          { numRuns: RUNS },
        );
      });
    });
  }
});
