import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

interface Gate {
  gate_id: string;
  name: string;
}
interface WordsModule {
  plural: (count: number, one: string, many?: string) => string;
  ago: (iso: string | null, now?: number) => string;
  until: (iso: string, now?: number) => string;
  refusal: (error: { message: string; details?: { fields?: { field: string; problem: string }[] } }) => string;
  gateText: (gateId: string | null, gates: Gate[]) => string;
  declaredGate: (typed: string, gates: Gate[]) => Gate | null;
  isLoopback: (hostname: string) => boolean;
  invitationText: (state: string | null) => string;
  newLinkWarning: (name: string, state: string | null) => string;
  emailCountsText: (counts: { with_email: number; queued: number; sent: number; failed: number }) => string;
  deliveryText: (
    delivery: { status: string; sent_at: string | null; last_error: string | null } | null,
    when: (iso: string | null) => string,
  ) => string;
}

// The console's browser module, loaded as it is served (a plain ES module, no build).
const wordsPath = '../../console/js/words.js';
const words = (await import(wordsPath)) as WordsModule;

const NOW = Date.parse('2030-07-01T20:00:00Z');
const before = (ms: number) => new Date(NOW - ms).toISOString();

describe('console words: counts, times and refusals as an organizer reads them', () => {
  it('says "1 exit" and "2 exits", "1 entry" and "0 entries"', () => {
    assert.equal(words.plural(1, 'exit'), '1 exit');
    assert.equal(words.plural(2, 'exit'), '2 exits');
    assert.equal(words.plural(1, 'entry', 'entries'), '1 entry');
    assert.equal(words.plural(0, 'entry', 'entries'), '0 entries');
  });

  it('says a last contact in words: just now, 2 min ago, 3 h ago, 1 day ago, never', () => {
    assert.equal(words.ago(before(20_000), NOW), 'just now');
    assert.equal(words.ago(before(2 * 60_000 + 5_000), NOW), '2 min ago');
    assert.equal(words.ago(before(3 * 3_600_000 + 60_000), NOW), '3 h ago');
    assert.equal(words.ago(before(25 * 3_600_000), NOW), '1 day ago');
    assert.equal(words.ago(before(50 * 3_600_000), NOW), '2 days ago');
    assert.equal(words.ago(null, NOW), 'never');
    assert.equal(words.ago(new Date(NOW + 5_000).toISOString(), NOW), 'just now', 'a clock a little ahead');
  });

  it('says an expiry in words: in 5 min, in 3 h, in 6 days, passed', () => {
    const after = (ms: number) => new Date(NOW + ms).toISOString();
    assert.equal(words.until(after(5 * 60_000 + 1), NOW), 'in 5 min');
    assert.equal(words.until(after(3 * 3_600_000 + 1), NOW), 'in 3 h');
    assert.equal(words.until(after(6 * 86_400_000 + 1), NOW), 'in 6 days');
    assert.equal(words.until(after(-1), NOW), 'passed');
  });

  it('says the issuer’s field problems as sentences, never "ends_at precedes event_date"', () => {
    const error = {
      message: 'ends_at precedes event_date',
      details: { fields: [{ field: 'ends_at', problem: 'must not precede event_date' }] },
    };
    assert.equal(words.refusal(error), 'The end must be after the start.');
    assert.equal(words.refusal({ message: 'the issuer is busy' }), 'the issuer is busy');
  });

  it('names gates as declared, finds a declared gate typed in another case, and knows loopback addresses', () => {
    const gates = [{ gate_id: 'north', name: 'North gate' }];
    assert.equal(words.gateText('north', gates), 'North gate (north)');
    assert.equal(words.gateText('west', gates), 'gate west (not declared)');
    assert.equal(words.gateText(null, gates), 'any gate');
    assert.equal(words.declaredGate('NORTH', gates)?.gate_id, 'north');
    assert.equal(words.declaredGate('nort', gates), null);
    for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '[::1]', '0.0.0.0', 'app.localhost']) {
      assert.equal(words.isLoopback(host), true, host);
    }
    for (const host of ['192.168.1.20', 'gates.example.org', 'localhost.example.org']) {
      assert.equal(words.isLoopback(host), false, host);
    }
  });

  it('says where an invitation stands, and what a new link would end', () => {
    assert.equal(words.invitationText('pending'), 'invitation pending');
    assert.equal(words.invitationText('accepted'), 'invitation accepted');
    assert.equal(words.invitationText(null), 'no open invitation');
    assert.match(words.newLinkWarning('Pat', 'pending'), /link made earlier for Pat stops working/);
    assert.match(words.newLinkWarning('Pat', 'accepted'), /Pat has set a password/);
    assert.match(words.newLinkWarning('Pat', null), /Pat has no open link/);
  });
});

describe("console words: a ticket's email", () => {
  it("counts the event's emails in words, the unsent ones being those neither queued, sent nor failed", () => {
    assert.equal(
      words.emailCountsText({ with_email: 5, queued: 1, sent: 2, failed: 1 }),
      '5 tickets have an email: 2 sent, 1 failed, 1 queued, 1 not sent yet.',
    );
    assert.equal(
      words.emailCountsText({ with_email: 1, queued: 0, sent: 0, failed: 0 }),
      '1 ticket has an email: 0 sent, 0 failed, 0 queued, 1 not sent yet.',
    );
    assert.match(words.emailCountsText({ with_email: 0, queued: 0, sent: 0, failed: 0 }), /^No ticket has an email/);
  });

  it('says Not sent, Queued, Sent <time> and Failed: <the server reply>', () => {
    const when = (iso: string | null) => `at ${iso}`;
    assert.equal(words.deliveryText(null, when), 'Not sent');
    assert.equal(words.deliveryText({ status: 'queued', sent_at: null, last_error: '451 later' }, when), 'Queued');
    assert.equal(
      words.deliveryText({ status: 'sent', sent_at: '2030-07-01T20:00:00Z', last_error: null }, when),
      'Sent at 2030-07-01T20:00:00Z',
    );
    assert.equal(
      words.deliveryText({ status: 'failed', sent_at: null, last_error: '550 5.1.1 no such mailbox' }, when),
      'Failed: 550 5.1.1 no such mailbox',
    );
  });
});
