/**
 * The offline roster over each Storage (memory, file system, IndexedDB): what a sync kept is what a
 * reopened device holds, through appends, a rewrite, a refusal and a forgetting.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JOURNALS, KeptRoster, type RosterLine, shortCodeDigest } from '../src/index.ts';
import type { WithFixture } from './storage-conformance.ts';

/** A roster line of the test's event. */
export function rosterLine(n: number, extra: Partial<RosterLine> = {}): RosterLine {
  return {
    tid: `T${String(n).padStart(4, '0')}`,
    holder_name: `Holder ${n}`,
    ticket_type: 'GA',
    order_ref: n % 2 === 0 ? 'ORDER-2' : null,
    attention: false,
    checkin_text: null,
    short_code: `${'ABCDE'}-${String(n).padStart(5, '0')}`,
    revoked: false,
    ...extra,
  };
}

export function rosterConformance(withFixture: WithFixture): void {
  test(
    'the roster: pages kept as they came, the latest line of a ticket holding, across a reopening and a rewrite',
    withFixture(async (fixture, storage) => {
      const roster = await KeptRoster.open(storage, 'E1', 4);
      await roster.saveTickets([rosterLine(1), rosterLine(2), rosterLine(3)], '1.T0003');
      await roster.saveTickets([rosterLine(2, { holder_name: 'Zoë Ångström', attention: true })], '2.T0002');
      let again = await KeptRoster.open(await fixture.open(), 'E1', 4);
      assert.equal(again.kind, 'roster');
      assert.equal(again.cursor, '2.T0002');
      assert.equal(again.tickets.size, 3);
      assert.equal(again.tickets.get('T0002')?.holder_name, 'Zoë Ångström');
      assert.equal((await again.resolve('abcde 00002'))?.tid, 'T0002');
      // Past twice what it needs, the journal is rewritten whole: one start line and one page.
      await roster.saveTickets([rosterLine(3, { revoked: true }), rosterLine(4)], '3.T0003');
      await roster.saveTickets(
        [rosterLine(1), rosterLine(2, { holder_name: 'Zoë Ångström' }), rosterLine(4)],
        '3.T0004',
      );
      const lines = await (await fixture.open()).readJournal(JOURNALS.roster);
      assert.equal(lines.length, 2, 'rewritten');
      again = await KeptRoster.open(await fixture.open(), 'E1', 4);
      assert.deepEqual([...again.tickets.keys()].sort(), ['T0001', 'T0002', 'T0003', 'T0004']);
      assert.equal(again.tickets.get('T0003')?.revoked, true);
      assert.equal(again.cursor, '3.T0004');
      // Another event's device holds nothing of this one.
      assert.equal((await KeptRoster.open(await fixture.open(), 'E2')).size, 0);
    }),
  );

  test(
    'the roster refused: names dropped, the refusal kept for that key, the digests kept instead; forgotten: nothing',
    withFixture(async (fixture, storage) => {
      const roster = await KeptRoster.open(storage, 'E1');
      await roster.saveTickets([rosterLine(1)], '1.T0001');
      await roster.refuse('key-1');
      await roster.saveCodes(
        [
          { digest: await shortCodeDigest('ABCDE00001'), tid: 'T0001', ticket_type: 'VIP' },
          { digest: await shortCodeDigest('ABCDE00002'), tid: 'T0002' },
        ],
        '1.T0002',
      );
      let again = await KeptRoster.open(await fixture.open(), 'E1');
      assert.equal(again.kind, 'codes');
      assert.equal(again.refusedKey, 'key-1');
      assert.equal(again.tickets.size, 0, 'no names');
      assert.deepEqual(await again.resolve('abcde-00001'), { tid: 'T0001', line: null, ticket_type: 'VIP' });
      assert.deepEqual(await again.resolve('ABCDE00002'), { tid: 'T0002', line: null, ticket_type: null });
      assert.equal(again.untyped, 1, 'a line kept without its type');
      assert.equal(await again.resolve('ABCDE-00009'), null);
      // Read again from the start for the types: nothing held until then, the re-read remembered.
      await again.rereadCodes();
      again = await KeptRoster.open(await fixture.open(), 'E1');
      assert.deepEqual([again.kind, again.size, again.reread, again.refusedKey], [null, 0, true, 'key-1']);
      await again.saveCodes(
        [{ digest: await shortCodeDigest('ABCDE00002'), tid: 'T0002', ticket_type: 'GA' }],
        '2.T0002',
      );
      again = await KeptRoster.open(await fixture.open(), 'E1');
      assert.deepEqual([again.kind, again.untyped, again.reread, again.cursor], ['codes', 0, true, '2.T0002']);
      assert.equal((await again.resolve('abcde00002'))?.ticket_type, 'GA');
      await again.forget();
      const none = await KeptRoster.open(await fixture.open(), 'E1');
      assert.equal(none.kind, null);
      assert.equal(none.refusedKey, null);
      assert.deepEqual(await (await fixture.open()).readJournal(JOURNALS.roster), []);
    }),
  );
}
