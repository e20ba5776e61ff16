import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { ADMIN_TOKEN, adminCall, enrollScanner, T0 } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';

interface Ticket {
  tid: string;
  holder_name: string;
  order_ref: string | null;
  short_code: string;
  ticket_type: string;
}
interface GroupTicket {
  tid: string;
  status: string;
  inside: boolean;
  attention: boolean;
  checkin_texts: string[];
}
interface Problem {
  error: { code: string; details: { fields?: { field: string }[]; reason?: string } };
}

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });

await eachBackend('groups of an order and short codes (scanner API)', ({ it, issuer }) => {
  const app = () => issuer().app;
  const newEvent = async () => {
    const { eid } = await adminCall<{ eid: string }>(app(), 'POST', '/admin/v1/events', {
      name: 'Group Fest',
      event_date: '2026-06-01T10:00:00Z',
    });
    return { eid, apiKey: (await enrollScanner(app(), eid)).apiKey };
  };
  const issue = async (eid: string, tickets: Record<string, unknown>[]) =>
    (await adminCall<{ tickets: Ticket[] }>(app(), 'POST', `/admin/v1/events/${eid}/tickets`, { tickets })).tickets;
  const get = (apiKey: string, url: string) => app().inject({ method: 'GET', url, headers: bearer(apiKey) });
  const checkIn = async (apiKey: string, eid: string, tid: string) => {
    const keyId = (
      await app().inject({ method: 'GET', url: `/admin/v1/events/${eid}/scanners`, headers: admin })
    ).json().scanners[0].scanner_id as string;
    const res = await app().inject({
      method: 'POST',
      url: '/api/v1/tickets/check-in',
      headers: bearer(apiKey),
      payload: { tid, eid, scanned_at: T0, scanner_id: keyId, idempotency_key: randomUUID() },
    });
    assert.equal(res.json().status, 'valid');
  };

  it('a ticket issued with order_ref carries it and a short code XXXXX-XXXXX in admin answers', async () => {
    const { eid } = await newEvent();
    const res = await app().inject({
      method: 'POST',
      url: `/admin/v1/events/${eid}/tickets`,
      headers: admin,
      payload: { holder_name: 'Ada', ticket_type: 'GA', order_ref: '  ORDER-1  ' },
    });
    assert.equal(res.statusCode, 201);
    const ticket = res.json() as Ticket;
    assert.equal(ticket.order_ref, 'ORDER-1');
    assert.match(ticket.short_code, /^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$/);
    const read = await adminCall<Ticket>(app(), 'GET', `/admin/v1/tickets/${ticket.tid}`);
    assert.equal(read.short_code, ticket.short_code);
    assert.equal(read.order_ref, 'ORDER-1');
  });

  it('short codes are random and unique within an event (not derived from the tid)', async () => {
    const { eid } = await newEvent();
    const tickets = await issue(
      eid,
      Array.from({ length: 200 }, (_, i) => ({ holder_name: `H${i}`, ticket_type: 'GA' })),
    );
    assert.equal(new Set(tickets.map((t) => t.short_code)).size, 200);
    for (const t of tickets) assert.ok(!t.tid.includes(t.short_code.replace('-', '')));
  });

  it('an order_ref over 64 characters is a 400 naming order_ref, in POST, bulk POST and PATCH', async () => {
    const { eid } = await newEvent();
    const long = 'x'.repeat(65);
    const fieldsOf = (res: { statusCode: number; json: () => unknown }) => {
      assert.equal(res.statusCode, 400);
      return (res.json() as Problem).error.details.fields?.map((f) => f.field);
    };
    const post = (payload: object) =>
      app().inject({ method: 'POST', url: `/admin/v1/events/${eid}/tickets`, headers: admin, payload });
    assert.deepEqual(fieldsOf(await post({ holder_name: 'A', ticket_type: 'GA', order_ref: long })), ['order_ref']);
    assert.deepEqual(fieldsOf(await post({ tickets: [{ holder_name: 'A', ticket_type: 'GA', order_ref: long }] })), [
      'tickets.0.order_ref',
    ]);
    const [ticket] = await issue(eid, [{ holder_name: 'A', ticket_type: 'GA', order_ref: 'x'.repeat(64) }]);
    assert.equal(ticket!.order_ref, 'x'.repeat(64));
    const patch = (payload: object) =>
      app().inject({ method: 'PATCH', url: `/admin/v1/tickets/${ticket!.tid}`, headers: admin, payload });
    assert.deepEqual(fieldsOf(await patch({ order_ref: long })), ['order_ref']);
    const changed = await patch({ order_ref: 'ORDER-9' });
    assert.equal(changed.statusCode, 200);
    assert.equal((changed.json() as Ticket).order_ref, 'ORDER-9');
    assert.equal(((await patch({ order_ref: '' })).json() as Ticket).order_ref, null);
  });

  it('the group answers the asked ticket first, then its order, with status, inside and notes; a revoked member says so', async () => {
    const { eid, apiKey } = await newEvent();
    const [a, b, c, other, alone] = await issue(eid, [
      { holder_name: 'Anna', ticket_type: 'GA', order_ref: 'B-7' },
      { holder_name: 'Ben', ticket_type: 'GA', order_ref: 'B-7', attention: true, checkin_text: 'Wheelchair' },
      { holder_name: 'Cleo', ticket_type: 'GA', order_ref: 'B-7' },
      { holder_name: 'Dora', ticket_type: 'GA', order_ref: 'B-8' },
      { holder_name: 'Eve', ticket_type: 'GA' },
    ]);
    await checkIn(apiKey, eid, a!.tid);
    await adminCall(app(), 'POST', `/admin/v1/tickets/${c!.tid}/revoke`, {});
    const res = await get(apiKey, `/api/v1/events/${eid}/tickets/${b!.tid}/group`);
    assert.equal(res.statusCode, 200);
    const group = res.json() as { order_ref: string; tickets: GroupTicket[] };
    assert.equal(group.order_ref, 'B-7');
    assert.equal(group.tickets[0]!.tid, b!.tid, 'the asked ticket first');
    assert.deepEqual(new Set(group.tickets.map((t) => t.tid)), new Set([a!.tid, b!.tid, c!.tid]));
    assert.ok(!group.tickets.some((t) => t.tid === other!.tid));
    const byTid = new Map(group.tickets.map((t) => [t.tid, t]));
    assert.deepEqual(byTid.get(b!.tid), {
      tid: b!.tid,
      holder_name: 'Ben',
      ticket_type: 'GA',
      status: 'valid',
      inside: false,
      attention: true,
      checkin_texts: ['Wheelchair'],
    });
    assert.equal(byTid.get(a!.tid)!.inside, true);
    assert.equal(byTid.get(a!.tid)!.status, 'checked_in');
    assert.equal(byTid.get(c!.tid)!.status, 'revoked');

    const single = (await get(apiKey, `/api/v1/events/${eid}/tickets/${alone!.tid}/group`)).json() as {
      order_ref: null;
      tickets: GroupTicket[];
    };
    assert.equal(single.order_ref, null);
    assert.deepEqual(
      single.tickets.map((t) => t.tid),
      [alone!.tid],
    );
  });

  it('a group of an unknown ticket, or of another event’s ticket, is the unknown ticket’s 404; another event’s key gets 403', async () => {
    const mine = await newEvent();
    const theirs = await newEvent();
    const [ticket] = await issue(theirs.eid, [{ holder_name: 'Zed', ticket_type: 'GA', order_ref: 'Z' }]);
    const unknown = await get(mine.apiKey, `/api/v1/events/${mine.eid}/tickets/01JUNKNOWN0000000000000000/group`);
    assert.equal(unknown.statusCode, 404);
    assert.equal((unknown.json() as Problem).error.code, 'NOT_FOUND');
    const foreign = await get(mine.apiKey, `/api/v1/events/${mine.eid}/tickets/${ticket!.tid}/group`);
    assert.equal(foreign.statusCode, 404);
    const wrongEvent = await get(mine.apiKey, `/api/v1/events/${theirs.eid}/tickets/${ticket!.tid}/group`);
    assert.equal(wrongEvent.statusCode, 403);
  });

  it('by-code finds the ticket whatever the case, dashes and spaces, and reads I/L as 1 and O as 0', async () => {
    const { eid, apiKey } = await newEvent();
    const [ticket] = await issue(eid, [{ holder_name: 'Ada', ticket_type: 'VIP' }]);
    const code = ticket!.short_code.replace('-', '');
    const typed = [
      ticket!.short_code,
      code.toLowerCase(),
      ` ${code.slice(0, 3)} ${code.slice(3, 7)}-${code.slice(7)} `,
      `${code.slice(0, 2)}--${code.slice(2).toLowerCase()}`,
      code.replace(/1/g, 'l').replace(/0/g, 'O'),
    ];
    for (const variant of typed) {
      const res = await get(apiKey, `/api/v1/events/${eid}/tickets/by-code/${encodeURIComponent(variant)}`);
      assert.equal(res.statusCode, 200, variant);
      assert.deepEqual(res.json(), { tid: ticket!.tid, holder_name: 'Ada', ticket_type: 'VIP' });
    }
  });

  it('an unknown code, or one that cannot be a code, answers like an unknown ticket (404 NOT_FOUND)', async () => {
    const { eid, apiKey } = await newEvent();
    const other = await newEvent();
    const [ticket] = await issue(other.eid, [{ holder_name: 'Ada', ticket_type: 'VIP' }]);
    for (const code of ['ZZZZZ-ZZZZZ', 'UUUUU-UUUUU', 'short', ticket!.short_code]) {
      const res = await get(apiKey, `/api/v1/events/${eid}/tickets/by-code/${encodeURIComponent(code)}`);
      assert.equal(res.statusCode, 404, code);
      assert.equal((res.json() as Problem).error.code, 'NOT_FOUND');
    }
  });

  it('codes lists every ticket’s digest (SHA-256 of the 10 characters, upper case, no dash) and type, paged, then changes since', async () => {
    const { eid, apiKey } = await newEvent();
    const tickets = await issue(
      eid,
      Array.from({ length: 5 }, (_, i) => ({ holder_name: `H${i}`, ticket_type: i % 2 ? 'VIP' : 'GA' })),
    );
    const digest = (code: string) => createHash('sha256').update(code.replace('-', '')).digest('hex');
    const seen = new Map<string, { digest: string; ticket_type: string }>();
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const url = `/api/v1/events/${eid}/codes?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = (await get(apiKey, url)).json() as {
        codes: { digest: string; tid: string; ticket_type: string }[];
        next_cursor: string;
        has_more: boolean;
      };
      pages += 1;
      for (const c of page.codes) seen.set(c.tid, { digest: c.digest, ticket_type: c.ticket_type });
      cursor = page.next_cursor;
      if (!page.has_more) break;
    }
    assert.equal(pages, 3);
    assert.deepEqual(
      seen,
      new Map(tickets.map((t) => [t.tid, { digest: digest(t.short_code), ticket_type: t.ticket_type }])),
    );
    const later = await issue(eid, [{ holder_name: 'Late', ticket_type: 'GA' }]);
    const next = (await get(apiKey, `/api/v1/events/${eid}/codes?cursor=${encodeURIComponent(cursor!)}`)).json() as {
      codes: { digest: string; tid: string; ticket_type: string }[];
    };
    assert.deepEqual(next.codes, [{ tid: later[0]!.tid, digest: digest(later[0]!.short_code), ticket_type: 'GA' }]);
  });

  it('a malformed cursor or limit is a 400 naming it', async () => {
    const { eid, apiKey } = await newEvent();
    for (const [query, field] of [
      ['cursor=nonsense', 'cursor'],
      ['limit=0', 'limit'],
      ['limit=5000', 'limit'],
    ] as const) {
      const res = await get(apiKey, `/api/v1/events/${eid}/codes?${query}`);
      assert.equal(res.statusCode, 400, query);
      assert.ok(
        (res.json() as Problem).error.details.fields?.some((f) => f.field === field),
        query,
      );
    }
  });
});
