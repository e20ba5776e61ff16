import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ANNUL_CASES,
  annulOutcome,
  holderAfterAnnul,
  withinAnnulWindow,
  CASE_GATES,
  CASE_TICKET_TYPE,
  entryOutcome,
  exitOutcome,
  holderAfter,
  type HolderState,
  type TicketFacts,
  VERDICT_CASES,
} from '../src/index.ts';

describe('the shared ticket rules on the verdict table', () => {
  for (const c of VERDICT_CASES) {
    it(`${c.name}: ${c.outcome}`, () => {
      const facts: TicketFacts = {
        signatureValid: c.signature === 'good',
        sameEvent: c.event === 'same',
        revoked: c.revoked || c.superseded,
        holder: !c.checkedIn ? 'unused' : c.wentOut === true ? 'out' : 'inside',
        expired: c.expired,
        ticketType: CASE_TICKET_TYPE,
      };
      const outcome = c.exit ? exitOutcome(facts) : entryOutcome(facts, CASE_GATES[c.gate], c.reentry === true);
      assert.equal(outcome, c.outcome);
    });
  }
});

describe('the state machine: unused, inside, out (revoked refuses entries, not exits)', () => {
  const table: [HolderState, 'in' | 'out', Parameters<typeof holderAfter>[2], HolderState][] = [
    ['unused', 'in', 'valid', 'inside'],
    ['unused', 'in', 'expired', 'unused'],
    ['unused', 'in', 'ticket_type_not_admitted', 'unused'],
    ['unused', 'in', 'revoked', 'unused'],
    ['inside', 'in', 'already_used', 'inside'],
    ['inside', 'out', 'checked_out', 'out'],
    ['inside', 'out', 'revoked', 'out'],
    ['inside', 'out', 'invalid_signature', 'inside'],
    ['inside', 'out', 'wrong_event', 'inside'],
    ['out', 'in', 'valid', 'inside'],
    ['out', 'in', 'already_used', 'out'],
    ['out', 'out', 'not_inside', 'out'],
    ['out', 'out', 'revoked', 'out'],
    ['unused', 'out', 'not_inside', 'unused'],
    ['unused', 'out', 'revoked', 'unused'],
  ];
  for (const [before, direction, outcome, after] of table) {
    it(`${before} --${direction}: ${outcome}--> ${after}`, () => {
      assert.equal(holderAfter(before, direction, outcome), after);
    });
  }
});

describe('annul: the entry undone, the holder back where they were (the shared table)', () => {
  for (const c of ANNUL_CASES) {
    it(`${c.name}: ${c.outcome}`, () => {
      const outcome = annulOutcome(c.facts);
      assert.equal(outcome, c.outcome);
      assert.equal(outcome === 'annulled' ? holderAfterAnnul(c.beforeEntry) : 'inside', c.after);
    });
  }
  it('the window counts from the entry’s scan time, its end included', () => {
    assert.equal(withinAnnulWindow('2026-06-01T12:00:00Z', '2026-06-01T12:15:00Z', 900), true);
    assert.equal(withinAnnulWindow('2026-06-01T12:00:00Z', '2026-06-01T12:15:01Z', 900), false);
  });
});
