import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CASE_GATES, CASE_TICKET_TYPE, VERDICT_CASES, type VerdictCase } from '@ticket-issuer/protocol';
import { decide, withoutTypes } from '../../src/domain/decide.ts';
import { decideExit } from '../../src/domain/decide-exit.ts';
import type { TicketRecord } from '../../src/store/store.ts';

const SCANNED_AT = '2026-06-01T12:00:00.000Z';

/** The ticket and request a case describes, as the issuer's `decide()` sees them inside the store. */
function situation(c: VerdictCase) {
  const ticket: TicketRecord = {
    tid: '01JTICKET0000000000000000',
    eid: c.event === 'same' ? 'evt_mine' : 'evt_other',
    holder_name: 'Ada Lovelace',
    ticket_type: CASE_TICKET_TYPE,
    issued_at: '2026-05-01T00:00:00.000Z',
    expires_at: c.expired ? '2026-06-01T11:00:00.000Z' : '2026-06-02T00:00:00.000Z',
    checked_in_at: c.checkedIn ? '2026-06-01T10:00:00.000Z' : null,
    revoked_at: c.revoked ? '2026-06-01T09:00:00.000Z' : null,
    revoke_reason: null,
    ticket_token: 'current.token.value',
    external_id: null,
    valid_from: null,
    attention: false,
    checkin_text: null,
    email: null,
    order_ref: null,
    short_code: 'ABCDE12345',
  };
  const presented = c.superseded ? 'superseded.token.value' : ticket.ticket_token;
  const signatureProblem = c.signature === 'bad' ? 'bad signature' : null;
  return { ticket, presented, signatureProblem };
}

describe("the issuer's decide() on the verdict table shared with the scanner package", () => {
  for (const c of VERDICT_CASES) {
    it(`${c.name}: ${c.outcome}`, () => {
      const { ticket, presented, signatureProblem } = situation(c);
      const gate = CASE_GATES[c.gate];
      // Presence as the store keeps it: a checked-in ticket is inside until it went out.
      const presence = c.checkedIn ? { inside: c.wentOut !== true, checked_out_at: null } : null;
      const verdict = c.exit
        ? decideExit(ticket, 'evt_mine', SCANNED_AT, signatureProblem, presented, presence)
        : decide(
            ticket,
            'evt_mine',
            SCANNED_AT,
            signatureProblem,
            presented,
            {
              gate: gate && { ...gate, admits: [...gate.admits] },
              ...(c.reentry ? { presence } : {}),
              entries: c.checkedIn ? [ticket.checked_in_at!] : [],
            },
            withoutTypes(c.reentry === true),
          );
      assert.equal(verdict.outcome, c.outcome);
      const inside = c.checkedIn && !c.wentOut;
      const movedIn =
        c.outcome === 'valid' ? { to: 'inside', from: c.checkedIn ? 'out' : 'unused', at: SCANNED_AT } : null;
      const movedOut =
        c.exit && inside && !['invalid_signature', 'wrong_event'].includes(c.outcome)
          ? { to: 'out', at: SCANNED_AT }
          : null;
      assert.deepEqual(verdict.move, c.exit ? movedOut : movedIn, 'only valid comes in; a holder inside goes out');
    });
  }
});
