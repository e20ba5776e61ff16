import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Change, CheckInRequestBody } from '@ticket-issuer/protocol';
import { MemoryStorage, Scanner } from '../src/index.ts';
import { discovery, enrolledStorage, envelope, json, NO_RULES, outcome } from './fake-issuer.ts';
import { claims, type TestKey, testKey } from './keys.ts';

const TID = '01JRULESSYNC00000000000000';
const T0 = new Date('2026-07-03T10:00:00Z');
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);

let key: TestKey;
let token: string;
before(async () => {
  key = await testKey();
  token = await key.sign(claims(TID));
});

/** A declared type as the rules route lists it, every rule left out at its default. */
const declared = (rules: Record<string, unknown>) => ({
  ticket_type: 'GA',
  valid_days: null,
  hours: null,
  max_entries: null,
  max_entries_per_day: null,
  reentry: null,
  min_minutes_between_entries: null,
  attention: false,
  checkin_text: null,
  ...rules,
});

/** An issuer the test steers: its rules (null: no rules route), gates, feed, and check-in answers. */
class FakeIssuer {
  rules: unknown = NO_RULES;
  gates: unknown = null;
  changes: Change[] = [];
  feedDown = false;
  checkIn: (body: CheckInRequestBody) => Response = (body) => outcome('valid', body.tid);
  readonly asked: string[] = [];

  readonly fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input);
    this.asked.push(url.replace(/^https?:\/\/[^/]+/, '').replace(/\?.*$/, ''));
    if (url.endsWith('/.well-known/ticket-issuer.json')) return json(200, discovery(key));
    if (url.includes('/changes')) {
      if (this.feedDown) return envelope(503, 'UNAVAILABLE');
      return json(200, { changes: this.changes, next_cursor: `c${this.changes.length}`, has_more: false });
    }
    if (url.endsWith('/rules')) return this.rules === null ? envelope(404, 'NOT_FOUND') : json(200, this.rules);
    if (url.endsWith('/gates')) return this.gates === null ? envelope(404, 'NOT_FOUND') : json(200, this.gates);
    if (url.endsWith('/tickets/scans')) return envelope(404, 'NOT_FOUND');
    return this.checkIn(JSON.parse(String(init?.body)) as CheckInRequestBody);
  }) as typeof fetch;
}

/** A scanner over `storage` talking to `issuer`, whose clock reads `clock.now`. */
function open(storage: MemoryStorage, issuer: FakeIssuer, clock: { now: Date }) {
  return Scanner.open(storage, { fetch: issuer.fetch, now: () => clock.now });
}

const ruled = (rules: Record<string, unknown>) => ({ ...NO_RULES, ticket_types: [declared(rules)] });

describe('the event’s rules on the device', () => {
  test('an issuer from before the rules route: the gates route is read instead, and kept', async () => {
    const issuer = new FakeIssuer();
    issuer.rules = null;
    issuer.gates = { gates: [{ gate_id: 'vip', name: 'VIP', admits: ['VIP'] }], reentry: true };
    const storage = enrolledStorage(key);
    const scanner = await open(storage, issuer, { now: T0 });
    assert.equal((await scanner.sync()).problem, null);
    assert.ok(issuer.asked.some((path) => path.endsWith('/rules')) && issuer.asked.some((p) => p.endsWith('/gates')));
    assert.equal(scanner.synced, true);
    assert.deepEqual(
      scanner.gates.map((gate) => gate.gate_id),
      ['vip'],
    );
    const [refused] = await scanner.scan([token], { offline: true, gate: 'vip' });
    assert.equal(refused!.reason, 'ticket_type_not_admitted');
    await scanner.close();
    const kept = JSON.parse(storage.files.get('rules.json')!) as Record<string, unknown>;
    assert.deepEqual([kept.timezone, kept.reentry, kept.ticket_types], ['UTC', true, []]);
  });

  test('a state kept by a scanner from before the rules route (gates.json) is read until the next sync', async () => {
    const storage = enrolledStorage(key);
    storage.files.set('gates.json', JSON.stringify({ gates: [{ gate_id: 'vip', admits: ['VIP'] }], reentry: false }));
    const scanner = await open(storage, new FakeIssuer(), { now: T0 });
    assert.deepEqual(
      scanner.gates.map((gate) => gate.gate_id),
      ['vip'],
    );
    await scanner.close();
  });

  test('a malformed rules answer is a sync problem, and the rules known before stay', async () => {
    const issuer = new FakeIssuer();
    issuer.rules = ruled({ max_entries: 1, reentry: 'any' });
    const storage = enrolledStorage(key);
    const scanner = await open(storage, issuer, { now: T0 });
    await scanner.sync();
    issuer.rules = { ...NO_RULES, timezone: 'Mars/Olympus_Mons' };
    assert.match(String((await scanner.sync()).problem?.message), /timezone/);
    await scanner.scan([token], { offline: true });
    assert.equal((await scanner.scan([token], { offline: true }))[0]!.reason, 'entry_limit_reached');
    await scanner.close();
  });

  test('notes for the gate: the type’s text, then the ticket’s from the feed, on every verdict, kept across a restart', async () => {
    const issuer = new FakeIssuer();
    issuer.rules = ruled({ attention: false, checkin_text: 'Green wristband' });
    issuer.changes = [
      {
        type: 'ticket_notes',
        tid: TID,
        attention: true,
        checkin_text: 'Wheelchair: use the ramp',
        at: T0.toISOString(),
      },
    ];
    const storage = enrolledStorage(key);
    const clock = { now: T0 };
    let scanner = await open(storage, issuer, clock);
    await scanner.sync();
    const [admit] = await scanner.scan([token], { offline: true });
    assert.deepEqual(
      [admit!.verdict, admit!.attention, admit!.checkin_texts],
      ['admit', true, ['Green wristband', 'Wheelchair: use the ramp']],
    );
    await scanner.close();

    scanner = await open(storage, issuer, clock);
    const [used] = await scanner.scan([token], { offline: true });
    assert.deepEqual(
      [used!.reason, used!.attention, used!.checkin_texts],
      ['already_used', true, ['Green wristband', 'Wheelchair: use the ramp']],
    );
    const [leaving] = await scanner.exit([token], { offline: true });
    assert.deepEqual([leaving!.verdict, leaving!.attention], ['exit', true]);

    // Notes taken off: only the type's text is left.
    issuer.changes.push({ type: 'ticket_notes', tid: TID, attention: false, checkin_text: null, at: T0.toISOString() });
    await scanner.sync();
    const [again] = await scanner.scan([token], { offline: true });
    assert.deepEqual([again!.attention, again!.checkin_texts], [false, ['Green wristband']]);
    await scanner.close();
  });

  test('online, the issuer’s notes are the verdict’s; an older issuer’s answer without them takes the device’s', async () => {
    const issuer = new FakeIssuer();
    issuer.rules = ruled({ checkin_text: 'Type text', reentry: 'any' });
    const scanner = await open(enrolledStorage(key), issuer, { now: T0 });
    await scanner.sync();
    issuer.checkIn = (body) =>
      json(200, {
        status: 'valid',
        ticket: { tid: body.tid, eid: body.eid, attention: true, checkin_texts: ['Issuer'] },
      });
    const [fromIssuer] = await scanner.scan([token]);
    assert.deepEqual([fromIssuer!.attention, fromIssuer!.checkin_texts], [true, ['Issuer']]);
    issuer.checkIn = (body) => outcome('valid', body.tid);
    const [older] = await scanner.scan([token]);
    assert.deepEqual([older!.attention, older!.checkin_texts], [false, ['Type text']]);
    await scanner.close();
  });

  test('online refusals by the entry rules carry their reason and details', async () => {
    const issuer = new FakeIssuer();
    const scanner = await open(enrolledStorage(key), issuer, { now: T0 });
    await scanner.sync();
    const details = {
      reason: 'too_soon',
      last_entry_at: T0.toISOString(),
      min_minutes_between_entries: 30,
      next_entry_at: minutes(30).toISOString(),
      holder_name: 'Ada Lovelace',
      ticket_type: 'GA',
    };
    issuer.checkIn = () => json(403, { error: { code: 'FORBIDDEN', message: 'too soon', details } });
    const [refused] = await scanner.scan([token]);
    assert.deepEqual(
      [refused!.verdict, refused!.reason, refused!.source, refused!.refusal?.reason, refused!.ticket?.holder_name],
      ['reject', 'too_soon', 'issuer', 'too_soon', 'Ada Lovelace'],
    );
    assert.equal((refused!.refusal as { next_entry_at?: string }).next_entry_at, minutes(30).toISOString());
    await scanner.close();
  });
});

describe('entries the device counts: the feed’s and its own', () => {
  test('its own offline admissions: too soon, then admitted, then the limit', async () => {
    const issuer = new FakeIssuer();
    issuer.rules = ruled({ reentry: 'any', max_entries: 2, min_minutes_between_entries: 30 });
    const clock = { now: T0 };
    const scanner = await open(enrolledStorage(key), issuer, clock);
    await scanner.sync();
    const scan = async (at: Date) => {
      clock.now = at;
      return (await scanner.scan([token], { offline: true }))[0]!;
    };
    assert.equal((await scan(T0)).verdict, 'admit');
    const soon = await scan(minutes(10));
    assert.deepEqual([soon.verdict, soon.reason], ['reject', 'too_soon']);
    assert.equal((soon.refusal as { next_entry_at?: string }).next_entry_at, minutes(30).toISOString());
    assert.equal((await scan(minutes(30))).verdict, 'admit');
    const limit = await scan(minutes(90));
    assert.deepEqual([limit.reason, (limit.refusal as { entries?: number }).entries], ['entry_limit_reached', 2]);
    await scanner.close();
  });

  test('within one offline batch, an admission counts for the next scan of it', async () => {
    const issuer = new FakeIssuer();
    issuer.rules = ruled({ reentry: 'any', max_entries: 1 });
    const scanner = await open(enrolledStorage(key), issuer, { now: T0 });
    await scanner.sync();
    const results = await scanner.scan([token, token], { offline: true });
    assert.deepEqual(
      results.map((r) => r.reason),
      ['valid', 'entry_limit_reached'],
    );
    await scanner.close();
  });

  test('an entry the issuer counted is kept until the feed has it, and counted once when it does', async () => {
    const issuer = new FakeIssuer();
    issuer.rules = ruled({ reentry: 'any', max_entries: 2 });
    const clock = { now: T0 };
    const storage = enrolledStorage(key);
    let scanner = await open(storage, issuer, clock);
    await scanner.sync();
    // Admitted online; the feed pull after it fails.
    assert.equal((await scanner.scan([token]))[0]!.verdict, 'admit');
    issuer.feedDown = true;
    await scanner.sync();
    await scanner.close();
    scanner = await open(storage, issuer, clock);
    clock.now = minutes(5);
    assert.equal((await scanner.scan([token], { offline: true }))[0]!.verdict, 'admit', 'one entry known: a second');
    clock.now = minutes(10);
    assert.equal((await scanner.scan([token], { offline: true }))[0]!.reason, 'entry_limit_reached');
    await scanner.close();

    assert.equal(scanner.queue.size, 2, 'the offline scans wait');
    await scanner.close();
  });

  test('an entry known from the feed and from the queue at once is counted once', async () => {
    const issuer = new FakeIssuer();
    issuer.rules = ruled({ reentry: 'any', max_entries: 2 });
    const clock = { now: T0 };
    const scanner = await open(enrolledStorage(key), issuer, clock);
    await scanner.sync();
    // The issuer records the entry but answers 503: the device admits on its own and keeps the scan.
    issuer.checkIn = (body) => {
      issuer.changes.push({ type: 'checked_in', tid: TID, at: body.scanned_at, scanner_id: 'me', gate_id: null });
      return envelope(503, 'UNAVAILABLE');
    };
    assert.equal((await scanner.scan([token]))[0]!.verdict, 'admit');
    // The next sync pulls the feed (which has the entry) while the scan stays queued.
    issuer.checkIn = () => envelope(503, 'UNAVAILABLE');
    await scanner.sync();
    assert.equal(scanner.queue.size, 1);
    assert.equal(scanner.knowledge.entries.get(TID)?.length, 1);
    clock.now = minutes(5);
    assert.equal((await scanner.scan([token], { offline: true }))[0]!.verdict, 'admit', 'one entry, not two');
    await scanner.close();
  });

  test('an offline admission the rules refuse at upload still counts: the holder went in', async () => {
    const issuer = new FakeIssuer();
    issuer.rules = ruled({ reentry: 'after_exit' });
    const clock = { now: T0 };
    const scanner = await open(enrolledStorage(key), issuer, clock);
    await scanner.sync();
    assert.equal((await scanner.scan([token], { offline: true }))[0]!.verdict, 'admit');
    issuer.checkIn = () =>
      json(403, { error: { code: 'FORBIDDEN', message: 'not valid now', details: { reason: 'not_valid_now' } } });
    issuer.feedDown = true;
    const synced = await scanner.sync();
    assert.deepEqual([synced.refused, synced.remaining], [1, 0]);
    clock.now = minutes(1);
    assert.equal((await scanner.scan([token], { offline: true }))[0]!.reason, 'already_used', 'the holder is inside');
    await scanner.close();
  });
});
