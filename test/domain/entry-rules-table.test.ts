import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CASE_GATES, CASE_TICKET_TYPE, caseTypeRules, ENTRY_RULE_CASES } from '@ticket-issuer/protocol';
import { decide } from '../../src/domain/decide.ts';
import type { TicketRecord } from '../../src/store/store.ts';

/** The ticket a case describes, as the store keeps it. */
function ticketOf(c: (typeof ENTRY_RULE_CASES)[number]): TicketRecord {
  const entries = c.entries ?? [];
  const last = entries.length > 0 ? [...entries].sort().at(-1)! : '2026-01-01T00:00:00.000Z';
  return {
    tid: '01JTICKET0000000000000000',
    eid: 'evt_mine',
    holder_name: 'Ada Lovelace',
    ticket_type: CASE_TICKET_TYPE,
    issued_at: '2026-01-01T00:00:00.000Z',
    expires_at: c.expired ? '2026-01-02T00:00:00.000Z' : null,
    checked_in_at: c.holder === 'unused' ? null : last,
    revoked_at: c.revoked ? '2026-01-01T01:00:00.000Z' : null,
    revoke_reason: null,
    ticket_token: 'current.token.value',
    external_id: null,
    valid_from: c.validFrom ?? null,
    attention: false,
    checkin_text: null,
    email: null,
    order_ref: null,
    short_code: 'ABCDE12345',
  };
}

describe("the issuer's decide() on the entry rules' table shared with the scanner package", () => {
  for (const c of ENTRY_RULE_CASES) {
    it(`${c.name}: ${c.outcome}`, () => {
      const ticket = ticketOf(c);
      const type = caseTypeRules(c);
      const gate = CASE_GATES[c.gate ?? 'open'];
      const presence = c.holder === 'unused' ? null : { inside: c.holder === 'inside', checked_out_at: null };
      const scannedAt = new Date(c.scannedAt).toISOString();
      const entries = (c.entries ?? []).map((e) => new Date(e).toISOString());
      const verdict = decide(
        ticket,
        'evt_mine',
        scannedAt,
        null,
        ticket.ticket_token,
        { gate: gate && { ...gate, admits: [...gate.admits] }, presence, entries },
        { event: c.event, types: type === null ? [] : [type] },
      );
      assert.equal(verdict.outcome, c.outcome);
      if (c.outcome === 'valid') {
        assert.equal(verdict.counted, true);
        assert.equal((verdict.answer.body as { ticket: { entries: number } }).ticket.entries, entries.length + 1);
        assert.deepEqual(verdict.move, { to: 'inside', from: c.holder, at: scannedAt });
      }
      if (['not_valid_now', 'entry_limit_reached', 'too_soon'].includes(c.outcome)) {
        assert.equal(verdict.answer.http_status, 403);
        const body = verdict.answer.body as { error: { code: string; details: { reason: string } } };
        assert.equal(body.error.code, 'FORBIDDEN');
        assert.equal(body.error.details.reason, c.outcome);
        assert.equal(verdict.move, null, 'a refusal changes nothing');
      }
    });
  }

  it('an entry a scanner admitted offline that the rules refuse now keeps its refusal and counts', () => {
    const c = ENTRY_RULE_CASES.find((x) => x.name === 'a Saturday ticket on Friday is not valid now')!;
    const ticket = ticketOf(c);
    const verdict = decide(
      ticket,
      'evt_mine',
      new Date(c.scannedAt).toISOString(),
      null,
      ticket.ticket_token,
      { gate: null, entries: [] },
      { event: c.event, types: [caseTypeRules(c)!] },
      true,
    );
    assert.equal(verdict.outcome, 'not_valid_now');
    assert.equal(verdict.answer.http_status, 403);
    assert.equal(verdict.counted, true);
    assert.equal(verdict.move?.to, 'inside');
  });
});
