import assert from 'node:assert/strict';
import { before, describe } from 'node:test';
import { FixedClock } from '../../src/domain/clock.ts';
import { adminCall, checkInBody, enrollScanner, postCheckIn, scenario, T0, type TestIssuer } from '../helpers/app.ts';
import { followFeed } from '../helpers/feed.ts';
import { twoIssuersOnOneDatabase } from '../helpers/postgres-issuers.ts';
import { itUnless, postgresAvailability } from '../helpers/services.ts';

const { problem, skip } = await postgresAvailability('PostgreSQL API tests');

describe('two issuer instances on one PostgreSQL database behave as one issuer', () => {
  const it = itUnless(skip);
  let a: TestIssuer;
  let b: TestIssuer;
  const clock = new FixedClock(T0);
  const issuers = twoIssuersOnOneDatabase({ problem, skip }, clock);

  before(() => {
    if (skip === undefined) ({ a, b } = issuers());
  });

  it('they share one signing key set and one admin view', async () => {
    const [docA, docB] = await Promise.all(
      [a, b].map(async (t) => (await t.app.inject({ url: '/.well-known/ticket-issuer.json' })).json()),
    );
    assert.deepEqual(docA.jwks, docB.jwks);
    assert.equal(docA.jwks.keys.length, 1, 'concurrent first starts agreed on one key');
    const s = await scenario(a.app);
    const ticket = await adminCall(b.app, 'GET', `/admin/v1/tickets/${s.tid}`);
    assert.equal(ticket.ticket_token, s.ticketToken);
  });

  it('20 simultaneous enrolments with one token across both give exactly one API key', async () => {
    const s = await scenario(a.app);
    const { token } = await adminCall<{ token: string }>(
      a.app,
      'POST',
      `/admin/v1/events/${s.eid}/enrollment-tokens`,
      {},
    );
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).app.inject({
          method: 'POST',
          url: '/api/v1/scanners/enroll',
          payload: { token, scanner_id: `dev-${i}` },
        }),
      ),
    );
    assert.equal(answers.filter((r) => r.statusCode === 200).length, 1);
  });

  it('30 simultaneous check-ins of one ticket with different keys across both give exactly one valid', async () => {
    const s = await scenario(a.app);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => postCheckIn((i % 2 ? a : b).app, s.apiKey, checkInBody(s, T0))),
    );
    const statuses = answers.map((r) => r.json().status);
    assert.equal(statuses.filter((x) => x === 'valid').length, 1);
    assert.equal(statuses.filter((x) => x === 'already_used').length, 29);
  });

  it('20 simultaneous requests with one key across both give 20 identical answers and one state change', async () => {
    const s = await scenario(b.app);
    const second = await enrollScanner(a.app, s.eid, s.scannerId);
    const body = checkInBody(s, T0);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => postCheckIn((i % 2 ? a : b).app, i % 3 ? s.apiKey : second.apiKey, body)),
    );
    assert.equal(new Set(answers.map((r) => `${r.statusCode} ${r.body}`)).size, 1);
    assert.equal(answers[0]!.json().status, 'valid');
    const { scans } = await adminCall<{ scans: { replay: boolean }[] }>(
      a.app,
      'GET',
      `/admin/v1/events/${s.eid}/scans`,
    );
    assert.equal(scans.length, 1, 'one line per scan, whatever the retries');
    assert.equal(scans[0]!.replay, false);
  });

  it('a revocation on one instance is seen by the other at once', async () => {
    const s = await scenario(a.app);
    await adminCall(a.app, 'POST', `/admin/v1/tickets/${s.tid}/revoke`, { reason: 'refund' });
    const res = await postCheckIn(b.app, s.apiKey, checkInBody(s, T0));
    assert.equal(res.json().status, 'revoked');
    const rotated = await adminCall<{ kid: string }>(b.app, 'POST', '/admin/v1/signing-keys/rotate');
    const fresh = await adminCall<{ tid: string; ticket_token: string }>(
      a.app,
      'POST',
      `/admin/v1/events/${s.eid}/tickets`,
      {
        holder_name: 'New',
        ticket_type: 'GA',
      },
    );
    const header = JSON.parse(Buffer.from(fresh.ticket_token.split('.')[0]!, 'base64url').toString());
    assert.equal(header.kid, rotated.kid, 'a key rotated on one instance signs on the other');
    const withToken = await postCheckIn(
      b.app,
      s.apiKey,
      checkInBody({ ...s, tid: fresh.tid }, T0, { ticket_token: fresh.ticket_token }),
    );
    assert.equal(withToken.json().status, 'valid');
  });

  it('text PostgreSQL refuses (NUL) is answered 4xx or an outcome, never 500', async () => {
    const s = await scenario(a.app);
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const cases: [Record<string, unknown>, number][] = [
      [{ scanned_at: '2026-06-01T12:00:00\u0000Z' }, 400],
      [{ idempotency_key: 'a\u0000b' }, 400],
      [{ tid: 'x\u0000y' }, 400],
      [{ gate_id: 'g\u0000' }, 400],
      [{ ticket_token: `${b64({ alg: 'EdDSA', kid: 'a\u0000b' })}.${b64({ v: 1 })}.AAAA` }, 400],
    ];
    for (const [change, status] of cases) {
      const res = await postCheckIn(b.app, s.apiKey, checkInBody(s, T0, change));
      assert.equal(res.statusCode, status, JSON.stringify(change));
    }
    const refused = await postCheckIn(b.app, s.apiKey, checkInBody(s, '2020-01-01T00:00:00Z', { gate_id: 'east' }));
    assert.equal(refused.statusCode, 400);
    const { scans } = await adminCall<{ scans: { outcome: string; reason: string }[] }>(
      a.app,
      'GET',
      `/admin/v1/events/${s.eid}/scans`,
    );
    assert.equal(scans.at(-1)!.outcome, 'refused');
    assert.match(scans.at(-1)!.reason, /48 hours/);
    for (const url of ['/admin/v1/events?cursor=%00', `/admin/v1/events/${s.eid}/tickets?cursor=%00`]) {
      const res = await a.app.inject({ url, headers: { authorization: 'Bearer test-admin-token-0123456789abcdef' } });
      assert.equal(res.statusCode, 400, url);
    }
  });

  it('a feed follower polling both instances during 200 concurrent check-ins sees each exactly once', async () => {
    const s = await scenario(a.app);
    const { tickets } = await adminCall<{ tickets: { tid: string }[] }>(
      a.app,
      'POST',
      `/admin/v1/events/${s.eid}/tickets`,
      { tickets: Array.from({ length: 200 }, (_, i) => ({ holder_name: `Guest ${i}`, ticket_type: 'GA' })) },
    );
    let done = false;
    const seen: Record<string, unknown>[] = [];
    const follower = (async () => {
      let cursor: string | undefined;
      for (let round = 0; !done || round < 2; round += 1) {
        const page = await followFeed(round % 2 ? a.app : b.app, s.apiKey, s.eid, 13, cursor);
        seen.push(...page.seen);
        cursor = page.cursor;
        if (done) round += 1;
      }
    })();
    const answers = await Promise.all(
      tickets.map((ticket, i) =>
        postCheckIn((i % 2 ? a : b).app, s.apiKey, checkInBody({ ...s, tid: ticket.tid }, T0)),
      ),
    );
    done = true;
    await follower;
    assert.ok(answers.every((r) => r.json().status === 'valid'));
    const tids = seen.map((c) => c.tid as string);
    assert.equal(new Set(tids).size, tids.length, 'no change seen twice');
    assert.deepEqual(tids.sort(), tickets.map((x) => x.tid).sort(), 'no change skipped');
  });

  it('a reissue on one instance supersedes the old token on the other, and both feeds say so', async () => {
    const s = await scenario(a.app);
    const fresh = await adminCall<{ ticket_token: string }>(
      a.app,
      'POST',
      `/admin/v1/tickets/${s.tid}/reissue`,
      {},
      200,
    );
    const old = await postCheckIn(b.app, s.apiKey, checkInBody(s, T0, { ticket_token: s.ticketToken }));
    assert.equal(old.json().status, 'revoked');
    const ok = await postCheckIn(b.app, s.apiKey, checkInBody(s, T0, { ticket_token: fresh.ticket_token }));
    assert.equal(ok.json().status, 'valid');
    const feedA = await followFeed(a.app, s.apiKey, s.eid);
    const feedB = await followFeed(b.app, s.apiKey, s.eid);
    assert.deepEqual(feedA.seen, feedB.seen);
    assert.deepEqual(
      feedA.seen.map((c) => c.type),
      ['token_superseded', 'checked_in'],
    );
  });
});
