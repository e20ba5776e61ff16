import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  ADMIN_TOKEN,
  adminCall,
  checkInBody,
  enrollScanner,
  postCheckIn,
  scenario,
  type Scenario,
  T0,
  testIssuer,
  type TestIssuer,
} from '../helpers/app.ts';

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const at = (offsetMs: number) => iso(Date.parse(T0) + offsetMs);

/** What an entry's answer adds to the ticket: its entries, and (none here) the notes for the gate. */
const atGate = (entries: number) => ({ entries, attention: false, checkin_texts: [] });

describe('POST /api/v1/tickets/check-in', () => {
  let t: TestIssuer;
  let s: Scenario;

  before(async () => {
    t = await testIssuer();
  });
  beforeEach(async () => {
    t.clock.set(T0);
    s = await scenario(t.app);
  });
  after(() => t.close());

  const scans = async (eid = s.eid) =>
    (await adminCall<{ scans: Record<string, unknown>[] }>(t.app, 'GET', `/admin/v1/events/${eid}/scans`)).scans;

  describe('outcomes', () => {
    it('valid: the first scan checks the ticket in; checked_in_at is the scan time', async () => {
      const res = await postCheckIn(t.app, s.apiKey, checkInBody(s, at(-HOUR)));
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), {
        status: 'valid',
        ticket: {
          tid: s.tid,
          eid: s.eid,
          holder_name: 'Ada Lovelace',
          ticket_type: 'GA',
          checked_in_at: at(-HOUR),
          // Entry rules: this entry counted, and no notes for the gate.
          ...atGate(1),
        },
      });
      const status = await t.app.inject({
        url: `/api/v1/tickets/${s.tid}/status`,
        headers: { authorization: `Bearer ${s.apiKey}` },
      });
      assert.equal(status.json().status, 'checked_in');
      assert.equal(status.json().checked_in_at, at(-HOUR));
    });

    it('already_used: a second scan with another key carries the original checked_in_at', async () => {
      await postCheckIn(t.app, s.apiKey, checkInBody(s, at(-HOUR)));
      const res = await postCheckIn(t.app, s.apiKey, checkInBody(s, at(0)));
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().status, 'already_used');
      assert.equal(res.json().ticket.checked_in_at, at(-HOUR));
      assert.equal(res.json().ticket.holder_name, 'Ada Lovelace');
    });

    it('revoked: a revoked ticket answers revoked with the full ticket object', async () => {
      await adminCall(t.app, 'POST', `/admin/v1/tickets/${s.tid}/revoke`, { reason: 'refund' });
      const res = await postCheckIn(t.app, s.apiKey, checkInBody(s, at(0)));
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), {
        status: 'revoked',
        ticket: {
          tid: s.tid,
          eid: s.eid,
          holder_name: 'Ada Lovelace',
          ticket_type: 'GA',
          checked_in_at: null,
          ...atGate(0),
        },
      });
    });

    it('revocation is judged at processing time: a scan made before the revocation, synced after, is revoked', async () => {
      await adminCall(t.app, 'POST', `/admin/v1/tickets/${s.tid}/revoke`);
      const res = await postCheckIn(t.app, s.apiKey, checkInBody(s, at(-10 * HOUR)));
      assert.equal(res.json().status, 'revoked');
    });

    it('wrong_event: a ticket of another event holds only tid and its own eid', async () => {
      const other = await scenario(t.app);
      const res = await postCheckIn(t.app, s.apiKey, checkInBody(s, at(0), { tid: other.tid }));
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { status: 'wrong_event', ticket: { tid: other.tid, eid: other.eid } });
      const ticket = await adminCall(t.app, 'GET', `/admin/v1/tickets/${other.tid}`);
      assert.equal(ticket.checked_in_at, null, 'the other ticket is untouched');
    });

    it('expired: expiry is judged at scanned_at, with the full ticket object', async () => {
      const expiring = await adminCall<{ tid: string }>(t.app, 'POST', `/admin/v1/events/${s.eid}/tickets`, {
        holder_name: 'Grace Hopper',
        ticket_type: 'Day pass',
        expires_at: at(HOUR),
      });
      t.clock.set(at(3 * HOUR));
      const late = await postCheckIn(t.app, s.apiKey, checkInBody(s, at(HOUR), { tid: expiring.tid }));
      assert.deepEqual(late.json(), {
        status: 'expired',
        ticket: {
          tid: expiring.tid,
          eid: s.eid,
          holder_name: 'Grace Hopper',
          ticket_type: 'Day pass',
          checked_in_at: null,
          ...atGate(0),
        },
      });
      const offline = await postCheckIn(t.app, s.apiKey, checkInBody(s, at(HOUR - 1000), { tid: expiring.tid }));
      assert.equal(offline.json().status, 'valid', 'scanned offline before expiry, synced after it');
    });

    it('an unknown tid returns 404 NOT_FOUND', async () => {
      const res = await postCheckIn(t.app, s.apiKey, checkInBody(s, at(0), { tid: '01J00000000000000000000000' }));
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().error.code, 'NOT_FOUND');
    });

    it('invalid_signature: signature_valid false answers 400 with status, null ticket and INVALID_SIGNATURE', async () => {
      const body = checkInBody(s, at(0), { signature_valid: false });
      const res = await postCheckIn(t.app, s.apiKey, body);
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().status, 'invalid_signature');
      assert.equal(res.json().ticket, null);
      assert.equal(res.json().error.code, 'INVALID_SIGNATURE');
      assert.equal(typeof res.json().error.message, 'string');
      assert.deepEqual(res.json().error.details, {});
      const replay = await postCheckIn(t.app, s.apiKey, body);
      assert.equal(replay.statusCode, 400);
      assert.deepEqual(replay.json(), res.json());
      const log = await scans();
      assert.equal(log.length, 1, 'a replay writes no second line');
      assert.equal(log[0]!.outcome, 'invalid_signature');
      assert.equal(log[0]!.reason, 'scanner reported an invalid signature');
      assert.equal(log[0]!.scanner_id, s.scannerId);
      assert.equal(log[0]!.api_key_id, s.apiKeyId);
      const ticket = await adminCall(t.app, 'GET', `/admin/v1/tickets/${s.tid}`);
      assert.equal(ticket.checked_in_at, null, 'an invalid signature never checks a ticket in');
    });

    it('signature_valid true without a token is checked in as usual', async () => {
      const res = await postCheckIn(t.app, s.apiKey, checkInBody(s, at(0), { signature_valid: true }));
      assert.equal(res.json().status, 'valid');
    });
  });

  describe('idempotency', () => {
    it('same tid and same key: a retry returns the original result', async () => {
      const body = checkInBody(s, at(-HOUR));
      const first = await postCheckIn(t.app, s.apiKey, body);
      t.clock.advance(HOUR);
      const retry = await postCheckIn(t.app, s.apiKey, body);
      assert.equal(retry.statusCode, 200);
      assert.equal(retry.body, first.body);
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.equal(first.headers['idempotent-replayed'], undefined);
    });

    it('a retry gets its first answer even when it comes after the 48-hour window', async () => {
      const body = checkInBody(s, at(-HOUR));
      const first = await postCheckIn(t.app, s.apiKey, body);
      t.clock.set(at(48 * HOUR));
      const retry = await postCheckIn(t.app, s.apiKey, body);
      assert.equal(retry.statusCode, 200);
      assert.equal(retry.body, first.body);
      const fresh = await postCheckIn(t.app, s.apiKey, { ...body, idempotency_key: randomUUID() });
      assert.equal(fresh.statusCode, 400, 'a new attempt that old is still refused');
    });

    it('a replay of an unknown tid gets the same 404', async () => {
      const body = checkInBody(s, at(0), { tid: '01J00000000000000000000000' });
      const first = await postCheckIn(t.app, s.apiKey, body);
      const retry = await postCheckIn(t.app, s.apiKey, body);
      assert.equal(retry.statusCode, 404);
      assert.equal(retry.body, first.body);
      assert.equal(retry.headers['idempotent-replayed'], 'true');
    });

    it('a replay returns the original result even after the ticket changed', async () => {
      const body = checkInBody(s, at(0));
      const first = await postCheckIn(t.app, s.apiKey, body);
      await adminCall(t.app, 'POST', `/admin/v1/tickets/${s.tid}/revoke`);
      const retry = await postCheckIn(t.app, s.apiKey, body);
      assert.deepEqual(retry.json(), first.json());
      assert.equal(retry.json().status, 'valid');
    });

    it('same key with a different body returns 409 IDEMPOTENCY_CONFLICT', async () => {
      const body = checkInBody(s, at(0));
      await postCheckIn(t.app, s.apiKey, body);
      for (const change of [{ scanned_at: at(-1000) }, { gate_id: 'east' }, { signature_valid: true }]) {
        const res = await postCheckIn(t.app, s.apiKey, { ...body, ...change });
        assert.equal(res.statusCode, 409, JSON.stringify(change));
        assert.equal(res.json().error.code, 'IDEMPOTENCY_CONFLICT');
      }
      const other = await scenario(t.app);
      const otherTicket = await postCheckIn(t.app, s.apiKey, { ...body, tid: other.tid });
      assert.equal(otherTicket.statusCode, 409);
    });

    it('scanned_at is compared as an instant: another spelling of the same instant is a replay', async () => {
      const body = checkInBody(s, '2026-06-01T11:00:00Z');
      const first = await postCheckIn(t.app, s.apiKey, body);
      for (const spelling of ['2026-06-01T11:00:00.000Z', '2026-06-01T11:00:00+00:00', '2026-06-01t11:00:00z']) {
        const res = await postCheckIn(t.app, s.apiKey, { ...body, scanned_at: spelling });
        assert.equal(res.statusCode, 200, spelling);
        assert.equal(res.body, first.body);
      }
    });

    it('the key may come in the Idempotency-Key header instead of the body', async () => {
      const key = randomUUID();
      const { idempotency_key: _omit, ...body } = checkInBody(s, at(0));
      const first = await postCheckIn(t.app, s.apiKey, body, { 'idempotency-key': key });
      assert.equal(first.json().status, 'valid');
      const inBody = await postCheckIn(t.app, s.apiKey, { ...body, idempotency_key: key });
      assert.equal(inBody.headers['idempotent-replayed'], 'true', 'header and body keys are the same key');
      const upper = await postCheckIn(t.app, s.apiKey, body, { 'idempotency-key': key.toUpperCase() });
      assert.equal(upper.headers['idempotent-replayed'], 'true', 'UUIDs compare case-insensitively');
    });

    it('header and body keys that differ return 400 INVALID_REQUEST', async () => {
      const res = await postCheckIn(t.app, s.apiKey, checkInBody(s, at(0)), { 'idempotency-key': randomUUID() });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().error.code, 'INVALID_REQUEST');
      assert.equal(res.json().error.details.fields[0].field, 'idempotency_key');
    });

    it('a missing or non-UUID key returns 400 INVALID_REQUEST', async () => {
      const { idempotency_key: _omit, ...body } = checkInBody(s, at(0));
      const missing = await postCheckIn(t.app, s.apiKey, body);
      assert.equal(missing.statusCode, 400);
      assert.equal(missing.json().error.details.fields[0].field, 'idempotency_key');
      const bad = await postCheckIn(t.app, s.apiKey, { ...body, idempotency_key: 'not-a-uuid' });
      assert.equal(bad.statusCode, 400);
      const badHeader = await postCheckIn(t.app, s.apiKey, body, { 'idempotency-key': '12345' });
      assert.equal(badHeader.statusCode, 400);
      const log = await scans();
      assert.deepEqual(
        log.map((x) => [x.outcome, x.reason]),
        [
          ['refused', 'INVALID_REQUEST: an idempotency key is required, in the body or the Idempotency-Key header'],
          ['refused', 'INVALID_REQUEST: idempotency_key must be a UUID'],
          ['refused', 'INVALID_REQUEST: the Idempotency-Key header must be a UUID'],
        ],
        'refused attempts are in the scan log with the reason',
      );
    });

    it('keys are scoped to the event: the same key in another event is a new attempt', async () => {
      const other = await scenario(t.app);
      const key = randomUUID();
      const here = await postCheckIn(t.app, s.apiKey, checkInBody(s, at(0), { idempotency_key: key }));
      const there = await postCheckIn(t.app, other.apiKey, checkInBody(other, at(0), { idempotency_key: key }));
      assert.equal(here.json().status, 'valid');
      assert.equal(there.json().status, 'valid');
      assert.equal(there.headers['idempotent-replayed'], undefined);
    });
  });

  describe('scanned_at window', () => {
    it('accepts a scan exactly 48 hours old and rejects one a second older, with the reason in details', async () => {
      const old = await postCheckIn(t.app, s.apiKey, checkInBody(s, at(-48 * HOUR)));
      assert.equal(old.json().status, 'valid');
      const tooOld = await postCheckIn(t.app, s.apiKey, checkInBody(s, at(-48 * HOUR - 1000)));
      assert.equal(tooOld.statusCode, 400);
      assert.equal(tooOld.json().error.code, 'INVALID_REQUEST');
      assert.deepEqual(tooOld.json().error.details.fields, [
        { field: 'scanned_at', problem: 'more than 48 hours in the past' },
      ]);
    });

    it('accepts a scan up to 5 minutes in the future and rejects one further ahead', async () => {
      const ahead = await postCheckIn(t.app, s.apiKey, checkInBody(s, at(5 * 60_000)));
      assert.equal(ahead.json().status, 'valid');
      const tooFar = await postCheckIn(t.app, s.apiKey, checkInBody(s, at(5 * 60_000 + 1000)));
      assert.equal(tooFar.statusCode, 400);
      assert.equal(tooFar.json().error.details.fields[0].problem, 'more than 5 minutes in the future');
    });

    it('rejects timestamps that are not ISO 8601 UTC', async () => {
      for (const bad of [
        '2026-06-01T12:00:00',
        '2026-06-01T14:00:00+02:00',
        '2026-06-01',
        '2026-02-30T10:00:00Z',
        '2026-06-01T24:00:00Z',
        '1717243200',
        'yesterday',
      ]) {
        const res = await postCheckIn(t.app, s.apiKey, checkInBody(s, bad));
        assert.equal(res.statusCode, 400, bad);
        assert.equal(res.json().error.details.fields[0].field, 'scanned_at', bad);
      }
    });
  });

  describe('scope and authentication', () => {
    it('an eid other than the key’s returns 403 FORBIDDEN', async () => {
      const other = await scenario(t.app);
      const res = await postCheckIn(t.app, s.apiKey, checkInBody(s, at(0), { eid: other.eid }));
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().error.code, 'FORBIDDEN');
    });

    it('a gate-scoped key accepts its gate or none and refuses another gate with 403', async () => {
      const gated = await scenario(t.app, { gateId: 'north' });
      const other = await postCheckIn(t.app, gated.apiKey, checkInBody(gated, at(0), { gate_id: 'south' }));
      assert.equal(other.statusCode, 403);
      const refused = (await scans(gated.eid)).shift()!;
      assert.deepEqual([refused.outcome, refused.gate_id], ['refused', 'south']);
      assert.match(String(refused.reason), /^FORBIDDEN: /);
      const own = await postCheckIn(t.app, gated.apiKey, checkInBody(gated, at(0), { gate_id: 'north' }));
      assert.equal(own.json().status, 'valid');
      const none = await postCheckIn(t.app, gated.apiKey, checkInBody(gated, at(0)));
      assert.equal(none.json().status, 'already_used');
      const log = await scans(gated.eid);
      assert.deepEqual(
        log.map((x) => x.gate_id),
        ['south', 'north', 'north'],
        'a gate-scoped key naming no gate is logged at its own gate',
      );
    });

    it('a scanner_id other than the enrolled one returns 403', async () => {
      const res = await postCheckIn(t.app, s.apiKey, checkInBody(s, at(0), { scanner_id: 'someone-else' }));
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().error.code, 'FORBIDDEN');
    });

    it('401 comes before any validation: a caller without a valid key learns nothing about bodies', async () => {
      for (const [headers, payload] of [
        [{}, {}],
        [{ authorization: 'Bearer sk_live_nope' }, { tid: 5 }],
        [{ authorization: 'Bearer sk_live_nope', 'idempotency-key': 'x'.repeat(80) }, checkInBody(s, at(0))],
        [{ authorization: 'Bearer sk_live_nope', 'content-type': 'text/plain' }, 'tid=1'],
      ] as const) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/v1/tickets/check-in',
          headers,
          payload: payload as object,
        });
        assert.equal(res.statusCode, 401, JSON.stringify(headers));
        assert.equal(res.json().error.code, 'UNAUTHORIZED');
      }
    });

    it('a missing, malformed or unknown key returns 401 UNAUTHORIZED', async () => {
      for (const headers of [{}, { authorization: 'Basic abc' }, { authorization: 'Bearer sk_live_nope' }]) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/v1/tickets/check-in',
          headers,
          payload: checkInBody(s, at(0)),
        });
        assert.equal(res.statusCode, 401, JSON.stringify(headers));
        assert.equal(res.json().error.code, 'UNAUTHORIZED');
      }
    });

    it('a revoked key returns 401 UNAUTHORIZED', async () => {
      await adminCall(t.app, 'POST', `/admin/v1/api-keys/${s.apiKeyId}/revoke`);
      const res = await postCheckIn(t.app, s.apiKey, checkInBody(s, at(0)));
      assert.equal(res.statusCode, 401);
    });

    it('a key revoked while in use is refused on its very next check-in, replays included', async () => {
      const first = checkInBody(s, at(0));
      assert.equal((await postCheckIn(t.app, s.apiKey, first)).json().status, 'valid');
      await adminCall(t.app, 'POST', `/admin/v1/api-keys/${s.apiKeyId}/revoke`);
      for (const body of [first, checkInBody(s, at(0))]) {
        const res = await postCheckIn(t.app, s.apiKey, body);
        assert.equal(res.statusCode, 401);
        assert.equal(res.json().error.code, 'UNAUTHORIZED');
      }
      const { scans } = await adminCall<{ scans: unknown[] }>(t.app, 'GET', `/admin/v1/events/${s.eid}/scans`);
      assert.equal(scans.length, 1, 'refused keys leave no scan behind');
    });

    it('a key that expires while in use is refused on its very next check-in', async () => {
      t.clock.set('2026-06-04T01:59:00Z');
      const scanned = '2026-06-04T01:58:00Z';
      assert.equal((await postCheckIn(t.app, s.apiKey, checkInBody(s, scanned))).json().status, 'valid');
      t.clock.set('2026-06-04T02:00:00Z');
      const res = await postCheckIn(t.app, s.apiKey, checkInBody(s, scanned));
      assert.equal(res.statusCode, 401);
    });

    it('an expired key returns 401 UNAUTHORIZED', async () => {
      t.clock.set('2026-06-04T02:00:00Z');
      const res = await postCheckIn(t.app, s.apiKey, checkInBody(s, '2026-06-04T01:59:00Z'));
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().error.code, 'UNAUTHORIZED');
    });
  });

  describe('races', () => {
    it('30 simultaneous check-ins of one ticket with different keys give exactly one valid', async () => {
      const answers = await Promise.all(
        Array.from({ length: 30 }, () => postCheckIn(t.app, s.apiKey, checkInBody(s, at(0)))),
      );
      const statuses = answers.map((r) => r.json().status);
      assert.equal(statuses.filter((x) => x === 'valid').length, 1);
      assert.equal(statuses.filter((x) => x === 'already_used').length, 29);
      const checkedInAt = answers.map((r) => r.json().ticket.checked_in_at);
      assert.equal(new Set(checkedInAt).size, 1, 'every answer names the one check-in');
    });

    it('20 simultaneous requests with one key give 20 identical answers and one state change', async () => {
      const second = await enrollScanner(t.app, s.eid, s.scannerId);
      const body = checkInBody(s, at(0));
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => postCheckIn(t.app, i % 2 ? s.apiKey : second.apiKey, body)),
      );
      assert.equal(new Set(answers.map((r) => r.body)).size, 1);
      assert.equal(answers[0]!.json().status, 'valid');
      const log = await scans();
      assert.equal(log.length, 1, 'one line per scan, whatever the retries');
      assert.equal(log[0]!.replay, false);
    });
  });

  it('the scan log records every attempt with its outcome, double scans included, a replay once', async () => {
    const body = checkInBody(s, at(-HOUR), { gate_id: 'main' });
    await postCheckIn(t.app, s.apiKey, body);
    await postCheckIn(t.app, s.apiKey, body);
    await postCheckIn(t.app, s.apiKey, checkInBody(s, at(0)));
    await postCheckIn(t.app, s.apiKey, { ...body, scanned_at: at(-2 * HOUR) });
    const log = await scans();
    assert.deepEqual(
      log.map((x) => [x.outcome, x.replay]),
      [
        ['valid', false],
        ['already_used', false],
        ['idempotency_conflict', false],
      ],
    );
    assert.equal(log[0]!.gate_id, 'main');
    assert.equal(log[0]!.scanned_at, at(-HOUR));
    assert.equal(log[0]!.received_at, at(0));
    assert.equal(log[0]!.idempotency_key, body.idempotency_key);
    assert.equal('holder_name' in log[0]!, false, 'the contract’s shape unless asked');

    const other = await scenario(t.app);
    await postCheckIn(t.app, s.apiKey, { ...checkInBody(s, at(0)), tid: other.tid });
    const named = await t.app.inject({
      url: `/admin/v1/events/${s.eid}/scans?include=holder_name`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const holders = (named.json() as { scans: { holder_name: string | null }[] }).scans.map((x) => x.holder_name);
    assert.deepEqual(
      holders,
      ['Ada Lovelace', 'Ada Lovelace', 'Ada Lovelace', null],
      'none for another event’s ticket',
    );
    const bad = await t.app.inject({
      url: `/admin/v1/events/${s.eid}/scans?include=everything`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(bad.statusCode, 400);
  });
});
