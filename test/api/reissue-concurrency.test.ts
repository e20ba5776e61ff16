import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { FixedClock } from '../../src/domain/clock.ts';
import type { App } from '../../src/http/context.ts';
import {
  ADMIN_TOKEN,
  adminCall,
  checkInBody,
  postCheckIn,
  scenario,
  T0,
  testIssuer,
  type TestIssuer,
} from '../helpers/app.ts';
import { followFeed } from '../helpers/feed.ts';
import { twoIssuersOnOneDatabase } from '../helpers/postgres-issuers.ts';
import { itUnless, postgresAvailability } from '../helpers/services.ts';

const { problem, skip } = await postgresAvailability('PostgreSQL reissue tests');

const jtiOf = (token: string): string =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')).jti;

const reissue = (app: App, tid: string, payload?: unknown) =>
  app.inject({
    method: 'POST',
    url: `/admin/v1/tickets/${tid}/reissue`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

function assertSuperseded(res: LightMyRequestResponse): void {
  assert.equal(res.statusCode, 409, res.body);
  const { error } = res.json();
  assert.equal(error.code, 'CONFLICT');
  assert.deepEqual(error.details, { reason: 'superseded' });
}

/** The same rules on each store: `apps()` gives the instances to spread the requests over. */
function reissueRaces(store: string, apps: () => App[], it: (name: string, fn: () => Promise<void>) => void): void {
  const on = (i: number) => apps()[i % apps().length]!;

  it(`${store}: six concurrent reissues naming the same jti give one 200 and five 409 CONFLICT superseded`, async () => {
    const s = await scenario(on(0));
    const jti = jtiOf(s.ticketToken);
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => reissue(on(i), s.tid, { jti })));
    const won = answers.filter((r) => r.statusCode === 200);
    assert.equal(won.length, 1, answers.map((r) => `${r.statusCode} ${r.body}`).join('\n'));
    for (const lost of answers.filter((r) => r.statusCode !== 200)) assertSuperseded(lost);
    const current = await adminCall<{ ticket_token: string }>(on(0), 'GET', `/admin/v1/tickets/${s.tid}`);
    assert.equal(current.ticket_token, won[0]!.json().ticket_token, 'the one answered token is the current one');
    const old = await postCheckIn(on(0), s.apiKey, checkInBody(s, T0, { ticket_token: s.ticketToken }));
    assert.equal(old.json().status, 'revoked', 'the replaced token is superseded');
    const ok = await postCheckIn(on(1), s.apiKey, checkInBody(s, T0, { ticket_token: current.ticket_token }));
    assert.equal(ok.json().status, 'valid');
  });

  it(`${store}: six concurrent reissues without a jti give one 200 per token replaced; the rest 409 superseded`, async () => {
    const s = await scenario(on(0));
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => reissue(on(i), s.tid)));
    const won = answers.filter((r) => r.statusCode === 200).map((r) => jtiOf(r.json().ticket_token));
    assert.ok(won.length >= 1);
    for (const lost of answers.filter((r) => r.statusCode !== 200)) assertSuperseded(lost);
    // Each success replaced a different token: as many token_superseded changes as 200s, none twice.
    const { seen } = await followFeed(on(0), s.apiKey, s.eid);
    const superseded = seen.filter((c) => c.type === 'token_superseded').map((c) => c.jti);
    assert.equal(superseded.length, won.length);
    assert.equal(new Set(superseded).size, superseded.length);
    assert.ok(superseded.includes(jtiOf(s.ticketToken)));
  });

  it(`${store}: a reissue naming a jti that is no longer current is 409 superseded and changes nothing`, async () => {
    const s = await scenario(on(0));
    const first = await reissue(on(0), s.tid, { jti: jtiOf(s.ticketToken) });
    assert.equal(first.statusCode, 200, first.body);
    const fresh = first.json().ticket_token as string;
    const again = await reissue(on(1), s.tid, { jti: jtiOf(s.ticketToken) });
    assertSuperseded(again);
    const current = await adminCall<{ ticket_token: string }>(on(1), 'GET', `/admin/v1/tickets/${s.tid}`);
    assert.equal(current.ticket_token, fresh);
    const next = await reissue(on(1), s.tid, { jti: jtiOf(fresh) });
    assert.equal(next.statusCode, 200, 'naming the current jti reissues');
  });
}

describe('concurrent reissues of one ticket on SQLite', () => {
  let t: TestIssuer;
  before(async () => {
    t = await testIssuer();
  });
  after(() => t.close());
  reissueRaces('SQLite', () => [t.app], itUnless(undefined));

  itUnless(undefined)('a jti that is not a string, or an unknown field, is 400 INVALID_REQUEST', async () => {
    const s = await scenario(t.app);
    for (const payload of [{ jti: 5 }, { jti: '' }, { jti: jtiOf(s.ticketToken), reason: 'x' }]) {
      const res = await reissue(t.app, s.tid, payload);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().error.code, 'INVALID_REQUEST');
    }
  });

  itUnless(undefined)('a revoked ticket named by a stale jti is refused as revoked, not as superseded', async () => {
    const s = await scenario(t.app);
    await adminCall(t.app, 'POST', `/admin/v1/tickets/${s.tid}/revoke`);
    const res = await reissue(t.app, s.tid, { jti: 'not-the-current-jti' });
    assert.equal(res.statusCode, 409);
    assert.match(res.json().error.message, /revoked/);
  });
});

describe('concurrent reissues of one ticket on PostgreSQL, across two instances', () => {
  const clock = new FixedClock(T0);
  const issuers = twoIssuersOnOneDatabase({ problem, skip }, clock);
  let apps: App[] = [];
  before(() => {
    if (skip === undefined) apps = Object.values(issuers()).map((x) => x.app);
  });
  reissueRaces('PostgreSQL', () => apps, itUnless(skip));
});
