import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before } from 'node:test';
import { ADMIN_TOKEN, adminCall, postCheckIn, T0, testIssuer } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';

interface Found {
  tid: string;
  holder_name: string;
  ticket_type: string;
  status: string;
  inside: boolean;
  attention: boolean;
  checkin_texts: string[];
}

const RANKED = ['Eva Heidelberger', 'Anna Berg', 'Bergitte Holm', 'Berg', 'José Marti', "Seán O'Brien-Núñez"];
const MANY = Array.from({ length: 12 }, (_, i) => `Lindqvist ${String(i + 1).padStart(2, '0')}`);

await eachBackend('finding a holder at the gate (GET /api/v1/events/{eid}/tickets/search)', ({ it, issuer, skip }) => {
  let eid = '';
  let searcher = { apiKey: '', scannerId: '' };
  let plain = { apiKey: '', scannerId: '' };
  const tidOf = new Map<string, string>();

  /** Enrols a scanner for the event with a token created with these fields; answers its scope. */
  async function enrol(event: string, token: Record<string, unknown>) {
    const created = await adminCall<{ token: string; allow_search: boolean }>(
      issuer().app,
      'POST',
      `/admin/v1/events/${event}/enrollment-tokens`,
      token,
    );
    const scannerId = randomUUID();
    const res = await issuer().app.inject({
      method: 'POST',
      url: '/api/v1/scanners/enroll',
      payload: { token: created.token, scanner_id: scannerId },
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as { api_key: string; scope: { allow_search: boolean } };
    return { apiKey: body.api_key, scannerId, scope: body.scope, tokenAllows: created.allow_search };
  }

  const search = (apiKey: string, q: string | null, event = eid) =>
    issuer().app.inject({
      method: 'GET',
      url: `/api/v1/events/${event}/tickets/search${q === null ? '' : `?q=${encodeURIComponent(q)}`}`,
      headers: { authorization: `Bearer ${apiKey}` },
    });
  const names = async (q: string) => {
    const res = await search(searcher.apiKey, q);
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { tickets: Found[] }).tickets.map((t) => t.holder_name);
  };

  before(async () => {
    if (skip !== undefined) return;
    const app = issuer().app;
    eid = (
      await adminCall<{ eid: string }>(app, 'POST', '/admin/v1/events', {
        name: 'Finder',
        event_date: '2026-06-02T18:00:00Z',
      })
    ).eid;
    await adminCall(app, 'PUT', `/admin/v1/events/${eid}/ticket-types/Wheelchair`, {
      attention: true,
      checkin_text: 'Ramp at the north door',
    });
    const { tickets } = await adminCall<{ tickets: { tid: string; holder_name: string }[] }>(
      app,
      'POST',
      `/admin/v1/events/${eid}/tickets`,
      {
        tickets: [
          ...RANKED.map((holder_name) => ({ holder_name, ticket_type: 'GA' })),
          ...MANY.map((holder_name) => ({ holder_name, ticket_type: 'GA' })),
          { holder_name: 'Grace Hopper', ticket_type: 'Wheelchair', checkin_text: 'Bring the wristband' },
        ],
      },
    );
    for (const ticket of tickets) tidOf.set(ticket.holder_name, ticket.tid);
    const allowed = await enrol(eid, { allow_search: true });
    searcher = allowed;
    plain = await enrol(eid, {});
  });

  it('a token created with allow_search gives its key scope.allow_search: true; by default false', async () => {
    const allowed = await enrol(eid, { allow_search: true });
    assert.equal(allowed.tokenAllows, true);
    assert.equal(allowed.scope.allow_search, true);
    const other = await enrol(eid, {});
    assert.equal(other.tokenAllows, false);
    assert.equal(other.scope.allow_search, false);
    const listed = await adminCall<{ enrollment_tokens: { allow_search: boolean }[] }>(
      issuer().app,
      'GET',
      `/admin/v1/events/${eid}/enrollment-tokens`,
    );
    assert.ok(listed.enrollment_tokens.some((t) => t.allow_search));
    assert.ok(listed.enrollment_tokens.some((t) => !t.allow_search));
    const refused = await issuer().app.inject({
      method: 'POST',
      url: `/admin/v1/events/${eid}/enrollment-tokens`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { allow_search: 'yes' },
    });
    assert.equal(refused.statusCode, 400);
    assert.match(JSON.stringify(refused.json().error.details), /allow_search/);
  });

  it('ranks the whole name, then a name starting with q, then a word starting with it, then any part', async () => {
    assert.deepEqual(await names('BERG'), ['Berg', 'Bergitte Holm', 'Anna Berg', 'Eva Heidelberger']);
    assert.deepEqual(await names('holm'), ['Bergitte Holm']);
  });

  it('ignores case, accents and punctuation in the name and in q', async () => {
    assert.deepEqual(await names('jose'), ['José Marti']);
    assert.deepEqual(await names('JOSÉ'), ['José Marti']);
    assert.deepEqual(await names('obrien'), ["Seán O'Brien-Núñez"]);
    assert.deepEqual(await names("o'brien nunez"), ["Seán O'Brien-Núñez"]);
    assert.deepEqual(await names('nunez'), ["Seán O'Brien-Núñez"]);
    assert.deepEqual(await names('100% zzz'), []);
  });

  it('answers at most 10 tickets, each with its state, presence and notes for the gate', async () => {
    const res = await search(searcher.apiKey, 'lindqvist');
    const found = (res.json() as { tickets: Found[] }).tickets;
    assert.equal(found.length, 10);
    assert.deepEqual(
      found.map((t) => t.holder_name),
      MANY.slice(0, 10),
    );
    assert.deepEqual(found[0], {
      tid: tidOf.get(MANY[0]!),
      holder_name: MANY[0],
      ticket_type: 'GA',
      status: 'valid',
      inside: false,
      attention: false,
      checkin_texts: [],
    });
    const grace = (await search(searcher.apiKey, 'hopper')).json() as { tickets: Found[] };
    assert.deepEqual(grace.tickets, [
      {
        tid: tidOf.get('Grace Hopper'),
        holder_name: 'Grace Hopper',
        ticket_type: 'Wheelchair',
        status: 'valid',
        inside: false,
        attention: true,
        checkin_texts: ['Ramp at the north door', 'Bring the wristband'],
      },
    ]);
  });

  it('q needs at least 3 letters or digits: 400 naming q', async () => {
    for (const q of ['ab', 'a.b', '   ', '', null]) {
      const res = await search(searcher.apiKey, q);
      assert.equal(res.statusCode, 400, String(q));
      assert.equal(res.json().error.code, 'INVALID_REQUEST');
      assert.deepEqual(
        res.json().error.details.fields.map((f: { field: string }) => f.field),
        ['q'],
      );
    }
  });

  it('a key without the permission, or of another event, gets 403 and sees nothing', async () => {
    for (const q of ['berg', 'ab']) {
      const res = await search(plain.apiKey, q);
      assert.equal(res.statusCode, 403, q);
      assert.equal(res.json().error.code, 'FORBIDDEN');
      assert.equal(res.json().error.details.reason, 'allow_search');
      assert.doesNotMatch(res.body, /Berg/);
    }
    const otherEvent = (
      await adminCall<{ eid: string }>(issuer().app, 'POST', '/admin/v1/events', {
        name: 'Elsewhere',
        event_date: '2026-06-02T18:00:00Z',
      })
    ).eid;
    const stranger = await enrol(otherEvent, { allow_search: true });
    const res = await search(stranger.apiKey, 'berg');
    assert.equal(res.statusCode, 403);
    assert.doesNotMatch(res.body, /Berg/);
    const anonymous = await issuer().app.inject({ method: 'GET', url: `/api/v1/events/${eid}/tickets/search?q=berg` });
    assert.equal(anonymous.statusCode, 401);
  });

  it('a manual check-in chosen from a search is valid and the scan log keeps manual: true', async () => {
    const [chosen] = ((await search(searcher.apiKey, 'holm')).json() as { tickets: Found[] }).tickets;
    const body = {
      tid: chosen!.tid,
      eid,
      scanned_at: T0,
      scanner_id: searcher.scannerId,
      idempotency_key: randomUUID(),
      manual: true,
    };
    const res = await postCheckIn(issuer().app, searcher.apiKey, body);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().status, 'valid');
    assert.equal(res.json().ticket.holder_name, 'Bergitte Holm');
    const replay = await postCheckIn(issuer().app, searcher.apiKey, body);
    assert.deepEqual(replay.json(), res.json());
    const { manual: _, ...withoutManual } = body;
    const conflict = await postCheckIn(issuer().app, searcher.apiKey, withoutManual);
    assert.equal(conflict.statusCode, 409);
    assert.equal(conflict.json().error.code, 'IDEMPOTENCY_CONFLICT');

    const log = await adminCall<{ scans: { tid: string; outcome: string; manual: boolean; replay: boolean }[] }>(
      issuer().app,
      'GET',
      `/admin/v1/events/${eid}/scans?limit=500`,
    );
    const first = log.scans.find((s) => s.tid === chosen!.tid && !s.replay);
    assert.equal(first?.outcome, 'valid');
    assert.equal(first?.manual, true);
    const again = ((await search(searcher.apiKey, 'holm')).json() as { tickets: Found[] }).tickets[0];
    assert.equal(again?.status, 'checked_in');
    assert.equal(again?.inside, true);

    // A scan with its ticket token is not manual.
    const anna = tidOf.get('Anna Berg')!;
    const scanned = await postCheckIn(issuer().app, searcher.apiKey, {
      tid: anna,
      eid,
      scanned_at: T0,
      scanner_id: searcher.scannerId,
      idempotency_key: randomUUID(),
    });
    assert.equal(scanned.json().status, 'valid');
    const later = await adminCall<{ scans: { tid: string; manual: boolean }[] }>(
      issuer().app,
      'GET',
      `/admin/v1/events/${eid}/scans?limit=500`,
    );
    assert.equal(later.scans.find((s) => s.tid === anna)?.manual, false);
  });

  it('manual check-ins made together (one batch on PostgreSQL) each keep manual in the scan log', async () => {
    const chosen = MANY.slice(0, 6).map((name) => tidOf.get(name)!);
    const answers = await Promise.all(
      chosen.map((tid) =>
        postCheckIn(issuer().app, searcher.apiKey, {
          tid,
          eid,
          scanned_at: T0,
          scanner_id: searcher.scannerId,
          idempotency_key: randomUUID(),
          manual: true,
        }),
      ),
    );
    assert.deepEqual(
      answers.map((res) => res.json().status),
      chosen.map(() => 'valid'),
    );
    const log = await adminCall<{ scans: { tid: string; manual: boolean }[] }>(
      issuer().app,
      'GET',
      `/admin/v1/events/${eid}/scans?limit=500`,
    );
    assert.deepEqual(
      chosen.map((tid) => log.scans.find((s) => s.tid === tid)?.manual),
      chosen.map(() => true),
    );
  });

  it('is rate limited like the status endpoint, per key', async () => {
    const t = issuer();
    const limited = await testIssuer({ store: t.store, env: { RATE_LIMIT_STATUS_PER_KEY: '3' } });
    try {
      const ask = (apiKey: string) =>
        limited.app.inject({
          method: 'GET',
          url: `/api/v1/events/${eid}/tickets/search?q=berg`,
          headers: { authorization: `Bearer ${apiKey}` },
        });
      for (let i = 0; i < 3; i += 1) assert.equal((await ask(searcher.apiKey)).statusCode, 200);
      const refused = await ask(searcher.apiKey);
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.json().error.code, 'RATE_LIMITED');
      assert.ok(Number(refused.headers['retry-after']) >= 1);
      const status = await limited.app.inject({
        method: 'GET',
        url: `/api/v1/tickets/${tidOf.get('Berg')}/status`,
        headers: { authorization: `Bearer ${searcher.apiKey}` },
      });
      assert.equal(status.statusCode, 429, 'one allowance for status reads and searches');
      const another = await enrol(eid, { allow_search: true });
      assert.equal((await ask(another.apiKey)).statusCode, 200);
    } finally {
      await limited.app.close();
    }
  });
});
