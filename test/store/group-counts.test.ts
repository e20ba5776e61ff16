import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CheckInDecider } from '../../src/store/store.ts';
import { seededSqlite } from './seeded-store.ts';

/** The seed's decision; `poisoned` makes the unit throw after its plan was applied (its answer cannot be stored). */
function decider(judge: CheckInDecider, poisoned = false): CheckInDecider {
  return (stored, gate, entries) => {
    const verdict = judge(stored, gate, entries);
    if (!poisoned) return verdict;
    const body = {
      toJSON: () => {
        throw new Error('the answer cannot be stored');
      },
    };
    return { ...verdict, answer: { ...verdict.answer, body } };
  };
}

describe('kept counts of a group commit on SQLite', () => {
  it('a group counts each committed entry once per gate and minute; a unit that rolled back counts nothing', async () => {
    const { store, event, tickets, attempt, scannedAt, judge, close } = await seededSqlite(60);
    try {
      const gates = ['north', 'south', null];
      const failing = new Set([7, 8, 31, 59]);
      const outcomes = await Promise.allSettled(
        tickets.map((ticket, i) =>
          store.checkIns.checkIn(attempt(ticket, gates[i % 3]!, scannedAt), decider(judge, failing.has(i))),
        ),
      );
      assert.deepEqual(
        outcomes.map((o) => o.status),
        tickets.map((_, i) => (failing.has(i) ? 'rejected' : 'fulfilled')),
      );
      const admitted = tickets.length - failing.size;
      assert.equal((await store.events.countTickets(event.eid)).checked_in, admitted);
      const occupancy = await store.checkIns.occupancy(event.eid);
      const perGate = (gate: string | null) =>
        tickets.filter((_, i) => gates[i % 3] === gate && !failing.has(i)).length;
      assert.equal(occupancy.inside, admitted);
      assert.deepEqual(
        occupancy.gates.map((g) => [g.gate_id, g.entries, g.exits]),
        [
          [null, perGate(null), 0],
          ['north', perGate('north'), 0],
          ['south', perGate('south'), 0],
        ],
      );
      const arrivals = await store.checkIns.arrivals(event.eid);
      assert.equal(
        arrivals.reduce((sum, a) => sum + a.entries, 0),
        admitted,
        'each admitted entry counted once in its minute',
      );
      for (const i of failing) assert.equal((await store.tickets.getTicket(tickets[i]!.tid))!.checked_in_at, null);

      // A second scan of an admitted ticket writes no count; a later group adds to the same rows.
      const again = await store.checkIns.checkIn(attempt(tickets[0]!, 'north', scannedAt), decider(judge));
      assert.equal(again.kind === 'answered' && (again.answer.body as { status: string }).status, 'already_used');
      await store.checkIns.checkIn(attempt(tickets[7]!, 'north', scannedAt), decider(judge));
      assert.equal((await store.events.countTickets(event.eid)).checked_in, admitted + 1);
      assert.equal(
        (await store.checkIns.occupancy(event.eid)).gates.find((g) => g.gate_id === 'north')!.entries,
        perGate('north') + 1,
      );
    } finally {
      await close();
    }
  });

  it('feed positions of a group follow on without a gap: a unit that rolled back gives its position back', async () => {
    const { store, event, tickets, attempt, scannedAt, judge, close } = await seededSqlite(40);
    try {
      const failing = new Set([0, 5, 6, 39]);
      const scan = (i: number) =>
        store.checkIns.checkIn(attempt(tickets[i]!, null, scannedAt), decider(judge, failing.has(i)));
      // Queued for the next group; the revocation commits at once, in a transaction of its own, before it.
      const first = tickets.slice(0, 20).map((_, i) => scan(i));
      await store.tickets.revokeTicket(tickets[30]!.tid, scannedAt, null);
      await Promise.allSettled(first);
      await store.tickets.revokeTicket(tickets[31]!.tid, scannedAt, null);
      await Promise.allSettled(tickets.slice(20, 40).map((_, i) => scan(20 + i)));
      const { items } = await store.feed.listChanges(event.eid, 0, 100);
      assert.deepEqual(
        items.map((change) => change.position),
        items.map((_, i) => i + 1),
        'positions 1 to n, in order, none missing',
      );
      const admitted = tickets.filter((_, i) => !failing.has(i) && i !== 30 && i !== 31).map((t) => t.tid);
      assert.deepEqual(
        items.filter((change) => change.type === 'checked_in').map((change) => change.tid),
        admitted,
        'one change per admitted entry, in the order the units ran',
      );
      assert.deepEqual(
        items.filter((change) => change.type === 'revoked').map((change) => [change.position, change.tid]),
        [
          [1, tickets[30]!.tid],
          [19, tickets[31]!.tid],
        ],
      );
      // A change outside any group takes the position after the last group's.
      await store.tickets.revokeTicket(tickets[1]!.tid, scannedAt, null);
      const after = await store.feed.listChanges(event.eid, items.length, 10);
      assert.deepEqual(
        after.items.map((change) => [change.position, change.type]),
        [[items.length + 1, 'revoked']],
      );
    } finally {
      await close();
    }
  });
});
