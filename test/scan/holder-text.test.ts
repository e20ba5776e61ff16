import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FoundHolder, ScanResult } from '@ticket-issuer/scanner';
import { holderFacts, whereHolderIs } from '../../web/scan/holder-text.ts';
import { verdictText } from '../../web/scan/verdict-text.ts';

const holder = (extra: Partial<FoundHolder> = {}): FoundHolder => ({
  tid: 'T1',
  holder_name: 'Ada Lovelace',
  ticket_type: 'VIP',
  status: 'valid',
  inside: false,
  attention: false,
  checkin_texts: [],
  ...extra,
});

describe('what Find by name says of a holder found', () => {
  it('says where the holder is, in words', () => {
    assert.equal(whereHolderIs(holder()), 'not in yet');
    assert.equal(whereHolderIs(holder({ status: 'checked_in', inside: true })), 'inside now');
    assert.equal(whereHolderIs(holder({ status: 'checked_in', inside: false })), 'came in, out now');
    assert.equal(whereHolderIs(holder({ status: 'revoked', inside: true })), 'revoked');
    assert.equal(whereHolderIs(holder({ status: 'expired' })), 'expired');
  });

  it('gives the type beside it, and Attention in words with the gate’s texts', () => {
    assert.deepEqual(holderFacts(holder()), { line: 'VIP · not in yet', attention: null });
    assert.deepEqual(holderFacts(holder({ attention: true })), { line: 'VIP · not in yet', attention: 'Attention' });
    assert.deepEqual(holderFacts(holder({ attention: true, checkin_texts: ['Wheelchair', 'Check ID'] })), {
      line: 'VIP · not in yet',
      attention: 'Attention: Wheelchair · Check ID',
    });
    assert.deepEqual(holderFacts(holder({ checkin_texts: ['Bring the wristband'] })).attention, 'Bring the wristband');
  });

  it('a manual check-in the issuer did not answer reads as a reject in words', () => {
    const result: ScanResult = {
      verdict: 'reject',
      reason: 'no_answer',
      tid: 'T1',
      source: 'offline',
      idempotency_key: 'k',
      issuer_contact: 'failed',
      attention: false,
      checkin_texts: [],
      ticket: { holder_name: 'Ada Lovelace', ticket_type: 'VIP', checked_in_at: null, checked_in_gate: null },
    };
    const text = verdictText(result);
    assert.equal(text.word, 'Reject');
    assert.equal(text.reason, 'no answer from the issuer: not checked in');
    assert.equal(text.who, 'Ada Lovelace · VIP');
  });
});
