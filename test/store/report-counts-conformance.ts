import assert from 'node:assert/strict';
import { describe } from 'node:test';
import type { CheckInAttempt, Store } from '../../src/store/store.ts';
import { keptReportCounts, recountReport, runReportMix } from './report-counts-mix.ts';

/** What the main conformance suite lends to this part of it. */
export interface ReportCountsSuiteContext {
  test: (title: string, fn: () => Promise<void>) => void;
  store: () => Store;
  newAttempt: (eid: string, tid: string) => CheckInAttempt;
}

/** The report's kept counts (tickets per type, holders per event day): part of the one conformance suite. */
export function reportCountsConformance(c: ReportCountsSuiteContext): void {
  describe('the report counts kept', () => {
    c.test(
      'tickets per type and holders per event day equal a recount after issuing, entries on two days, exits, re-entries, annuls and revocations',
      async () => {
        const store = c.store();
        const event = await runReportMix(store, c.newAttempt('', '').api_key_id);
        const counts = await keptReportCounts(store, event.eid);
        assert.deepEqual(counts, await recountReport(store, event));
        assert.deepEqual(counts.days, [
          ['2026-06-01', 8],
          ['2026-06-02', 2],
        ]);
        assert.deepEqual(
          counts.types.map((t) => [t.ticket_type, t.issued, t.checked_in, t.revoked, t.no_show]),
          [
            ['general', 8, 7, 2, 0],
            ['vip', 5, 2, 2, 1],
          ],
        );
      },
    );
  });
}
