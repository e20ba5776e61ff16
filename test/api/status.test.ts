import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  adminCall,
  checkInBody,
  postCheckIn,
  scenario,
  type Scenario,
  T0,
  testIssuer,
  type TestIssuer,
} from '../helpers/app.ts';

describe('GET /api/v1/tickets/{tid}/status', () => {
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

  const status = (tid: string, apiKey = s.apiKey) =>
    t.app.inject({ url: `/api/v1/tickets/${tid}/status`, headers: { authorization: `Bearer ${apiKey}` } });

  it('valid: issued, not used, not expired; with every field of the spec', async () => {
    const res = await status(s.tid);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      tid: s.tid,
      eid: s.eid,
      status: 'valid',
      holder_name: 'Ada Lovelace',
      ticket_type: 'GA',
      issued_at: '2026-06-01T12:00:00Z',
      checked_in_at: null,
      // The contract's additions: whether the holder is inside now, and when they went out (null: not out).
      inside: false,
      checked_out_at: null,
      // Entry rules: the ticket's entries and the notes for the gate.
      entries: 0,
      attention: false,
      checkin_texts: [],
    });
  });

  it('checked_in: checked_in_at holds the time', async () => {
    await postCheckIn(t.app, s.apiKey, checkInBody(s, '2026-06-01T11:59:00Z'));
    const res = await status(s.tid);
    assert.equal(res.json().status, 'checked_in');
    assert.equal(res.json().checked_in_at, '2026-06-01T11:59:00Z');
    assert.equal(res.json().inside, true);
  });

  it('revoked: after the organizer revokes it', async () => {
    await adminCall(t.app, 'POST', `/admin/v1/tickets/${s.tid}/revoke`, { reason: 'fraud' });
    assert.equal((await status(s.tid)).json().status, 'revoked');
  });

  it('expired: not used and its expiry has passed', async () => {
    const ticket = await adminCall<{ tid: string }>(t.app, 'POST', `/admin/v1/events/${s.eid}/tickets`, {
      holder_name: 'Alan Turing',
      ticket_type: 'Early bird',
      expires_at: '2026-06-01T13:00:00Z',
    });
    assert.equal((await status(ticket.tid)).json().status, 'valid');
    t.clock.set('2026-06-01T13:00:01Z');
    assert.equal((await status(ticket.tid)).json().status, 'expired');
  });

  it('does not modify the ticket', async () => {
    await status(s.tid);
    await status(s.tid);
    const ticket = await adminCall(t.app, 'GET', `/admin/v1/tickets/${s.tid}`);
    assert.equal(ticket.checked_in_at, null);
    const { scans } = await adminCall<{ scans: unknown[] }>(t.app, 'GET', `/admin/v1/events/${s.eid}/scans`);
    assert.equal(scans.length, 0);
  });

  it('an unknown tid returns 404 NOT_FOUND', async () => {
    const res = await status('01J00000000000000000000000');
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().error.code, 'NOT_FOUND');
  });

  it('a ticket of another event returns 403 FORBIDDEN', async () => {
    const other = await scenario(t.app);
    const res = await status(other.tid);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'FORBIDDEN');
  });

  it('a missing, invalid, revoked or expired key returns 401 UNAUTHORIZED', async () => {
    assert.equal((await t.app.inject({ url: `/api/v1/tickets/${s.tid}/status` })).statusCode, 401);
    assert.equal((await status(s.tid, 'sk_live_' + 'x'.repeat(43))).statusCode, 401);
    t.clock.set('2026-06-04T02:00:00Z');
    assert.equal((await status(s.tid)).json().error.code, 'UNAUTHORIZED');
    t.clock.set(T0);
    await adminCall(t.app, 'POST', `/admin/v1/api-keys/${s.apiKeyId}/revoke`);
    assert.equal((await status(s.tid)).statusCode, 401);
  });

  it('last_seen_at follows the scanner’s use of its key', async () => {
    t.clock.set('2026-06-01T12:30:00Z');
    await status(s.tid);
    const { scanners } = await adminCall<{ scanners: { api_key_id: string; last_seen_at: string }[] }>(
      t.app,
      'GET',
      `/admin/v1/events/${s.eid}/scanners`,
    );
    assert.equal(scanners.find((x) => x.api_key_id === s.apiKeyId)!.last_seen_at, '2026-06-01T12:30:00Z');
  });
});
