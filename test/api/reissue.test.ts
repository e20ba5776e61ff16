import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createLocalJWKSet, jwtVerify } from 'jose';
import {
  ADMIN_TOKEN,
  adminCall,
  checkInBody,
  postCheckIn,
  scenario,
  type Scenario,
  testIssuer,
  type TestIssuer,
} from '../helpers/app.ts';

const NOW = '2026-06-01T12:00:00Z';
const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
const header = (token: string) => JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8'));

describe('POST /admin/v1/tickets/{tid}/reissue', () => {
  let t: TestIssuer;
  let s: Scenario;

  before(async () => {
    t = await testIssuer();
  });
  beforeEach(async () => {
    s = await scenario(t.app, { ticket: { expires_at: '2026-06-03T00:00:00Z' } });
  });
  after(() => t.close());

  const reissue = (tid: string, payload?: unknown) =>
    t.app.inject({
      method: 'POST',
      url: `/admin/v1/tickets/${tid}/reissue`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const scanWith = (token: string) => postCheckIn(t.app, s.apiKey, checkInBody(s, NOW, { ticket_token: token }));

  it('every ticket token carries a jti unique to that token', async () => {
    const { tickets } = await adminCall<{ tickets: { ticket_token: string }[] }>(
      t.app,
      'POST',
      `/admin/v1/events/${s.eid}/tickets`,
      { tickets: Array.from({ length: 50 }, () => ({ holder_name: 'Guest', ticket_type: 'GA' })) },
    );
    const jtis = new Set(tickets.map((x) => claims(x.ticket_token).jti));
    assert.equal(jtis.size, 50);
  });

  it('answers 200 with the ticket and a new token: new jti, same tid and claims, current signing key', async () => {
    const rotated = await adminCall<{ kid: string }>(t.app, 'POST', '/admin/v1/signing-keys/rotate');
    for (const payload of [undefined, {}]) {
      const before = (await adminCall<{ ticket_token: string }>(t.app, 'GET', `/admin/v1/tickets/${s.tid}`))
        .ticket_token;
      const res = await reissue(s.tid, payload);
      assert.equal(res.statusCode, 200, res.body);
      const ticket = res.json();
      assert.equal(ticket.tid, s.tid);
      assert.equal(ticket.status, 'valid');
      assert.notEqual(ticket.ticket_token, before);
      const [oldClaims, newClaims] = [claims(before), claims(ticket.ticket_token)];
      assert.notEqual(newClaims.jti, oldClaims.jti);
      assert.deepEqual({ ...newClaims, jti: null }, { ...oldClaims, jti: null });
      assert.equal(header(ticket.ticket_token).kid, rotated.kid);
      const stored = await adminCall<{ ticket_token: string }>(t.app, 'GET', `/admin/v1/tickets/${s.tid}`);
      assert.equal(stored.ticket_token, ticket.ticket_token);
    }
  });

  it('the new token verifies with a standard JOSE library and the published keys', async () => {
    const { ticket_token } = (await reissue(s.tid)).json();
    const doc = (await t.app.inject({ url: '/.well-known/ticket-issuer.json' })).json();
    const { payload } = await jwtVerify(ticket_token, createLocalJWKSet(doc.jwks), {
      issuer: doc.iss,
      currentDate: new Date(NOW),
    });
    assert.equal(payload.tid, s.tid);
  });

  it('a check-in with the superseded token answers revoked with the full ticket and changes nothing', async () => {
    const { ticket_token: fresh } = (await reissue(s.tid)).json();
    const res = await scanWith(s.ticketToken);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      status: 'revoked',
      ticket: {
        tid: s.tid,
        eid: s.eid,
        holder_name: 'Ada Lovelace',
        ticket_type: 'GA',
        checked_in_at: null,
        entries: 0,
        attention: false,
        checkin_texts: [],
      },
    });
    const status = await t.app.inject({
      url: `/api/v1/tickets/${s.tid}/status`,
      headers: { authorization: `Bearer ${s.apiKey}` },
    });
    assert.equal(status.json().status, 'valid', 'the ticket itself stays usable');
    const scans = await adminCall<{ scans: { outcome: string; reason: string | null }[] }>(
      t.app,
      'GET',
      `/admin/v1/events/${s.eid}/scans`,
    );
    assert.deepEqual(scans.scans.at(-1), { ...scans.scans.at(-1), outcome: 'revoked' });
    assert.match(String(scans.scans.at(-1)!.reason), /superseded/);
    const ok = await scanWith(fresh);
    assert.equal(ok.json().status, 'valid', 'the new token checks the ticket in');
  });

  it('tickets signed by a removed key get a way back', async () => {
    const oldKid = header(s.ticketToken).kid;
    await adminCall(t.app, 'POST', '/admin/v1/signing-keys/rotate');
    await adminCall(t.app, 'DELETE', `/admin/v1/signing-keys/${oldKid}`);
    assert.equal((await scanWith(s.ticketToken)).json().status, 'invalid_signature');
    const { ticket_token } = (await reissue(s.tid)).json();
    assert.equal((await scanWith(ticket_token)).json().status, 'valid');
  });

  it('a revoked or used ticket cannot be reissued: 409 CONFLICT', async () => {
    await adminCall(t.app, 'POST', `/admin/v1/tickets/${s.tid}/revoke`);
    const revoked = await reissue(s.tid);
    assert.equal(revoked.statusCode, 409);
    assert.equal(revoked.json().error.code, 'CONFLICT');
    assert.match(revoked.json().error.message, /revoked/);
    const used = await scenario(t.app);
    await postCheckIn(t.app, used.apiKey, checkInBody(used, NOW));
    const res = await reissue(used.tid);
    assert.equal(res.statusCode, 409);
    assert.equal(res.json().error.code, 'CONFLICT');
    assert.match(res.json().error.message, /checked in/);
  });

  it('an unknown tid is 404 NOT_FOUND; no admin token is 401', async () => {
    const unknown = await reissue('01JZZZZZZZZZZZZZZZZZZZZZZZ');
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().error.code, 'NOT_FOUND');
    const anon = await t.app.inject({ method: 'POST', url: `/admin/v1/tickets/${s.tid}/reissue` });
    assert.equal(anon.statusCode, 401);
  });

  it('concurrent reissues of one ticket leave exactly one current token', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => reissue(s.tid)));
    const ok = answers.filter((r) => r.statusCode === 200).map((r) => r.json().ticket_token as string);
    assert.ok(ok.length >= 1);
    for (const refused of answers.filter((r) => r.statusCode !== 200)) {
      assert.equal(refused.statusCode, 409);
      assert.deepEqual(refused.json().error.details, { reason: 'superseded' });
    }
    const current = (await adminCall<{ ticket_token: string }>(t.app, 'GET', `/admin/v1/tickets/${s.tid}`))
      .ticket_token;
    assert.ok(ok.includes(current), 'the current token is one that was answered');
    const superseded = ok.filter((token) => token !== current);
    for (const token of superseded) assert.equal((await scanWith(token)).json().status, 'revoked');
    assert.equal((await scanWith(current)).json().status, 'valid');
  });
});
