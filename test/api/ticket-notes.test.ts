import assert from 'node:assert/strict';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import Papa from 'papaparse';
import { ADMIN_TOKEN, adminCall, enrollScanner, T0 } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';
import { followFeed } from '../helpers/feed.ts';

interface Ticket {
  tid: string;
  eid: string;
  holder_name: string;
  ticket_token: string;
  valid_from: string | null;
  attention: boolean;
  checkin_text: string | null;
}
interface Problem {
  error: { code: string; details: { fields: { field: string; problem: string }[] } };
}

// The console's CSV reader, loaded as the browser gets it: the import sends what it reads.
const csvPath = '../../console/js/csv.js';
const { readTicketsCsv } = (await import(csvPath)) as {
  readTicketsCsv: (text: string, papa: typeof Papa) => { tickets: Record<string, unknown>[]; problems: unknown[] };
};

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const unix = (iso: string) => Math.floor(Date.parse(iso) / 1000);

await eachBackend('per-ticket valid_from and gate notes (attention, checkin_text)', ({ it, issuer }) => {
  const app = () => issuer().app;
  const newEvent = async () => {
    const { eid } = await adminCall<{ eid: string }>(app(), 'POST', '/admin/v1/events', {
      name: 'Weekend Festival',
      event_date: '2026-06-05T10:00:00Z',
      ends_at: '2026-06-07T23:00:00Z',
    });
    return { eid, apiKey: (await enrollScanner(app(), eid)).apiKey };
  };
  const send = (method: 'POST' | 'PATCH', url: string, payload: unknown) =>
    app().inject({ method, url, headers: admin, payload: payload as object });
  const issue = (eid: string, payload: unknown) => send('POST', `/admin/v1/events/${eid}/tickets`, payload);
  const patch = (tid: string, payload: unknown) => send('PATCH', `/admin/v1/tickets/${tid}`, payload);
  const fieldsOf = (res: { statusCode: number; json: () => unknown }) => {
    assert.equal(res.statusCode, 400);
    const body = res.json() as Problem;
    assert.equal(body.error.code, 'INVALID_REQUEST');
    return body.error.details.fields.map((f) => f.field);
  };
  const notesChanges = async (eid: string, apiKey: string) =>
    (await followFeed(app(), apiKey, eid)).seen.filter((c) => c.type === 'ticket_notes');

  it('a ticket with valid_from carries it as the token’s nbf (Unix seconds), and the token verifies from then on', async () => {
    const { eid } = await newEvent();
    const res = await issue(eid, {
      holder_name: 'Sunday Only',
      ticket_type: 'Day pass',
      valid_from: '2026-06-07T06:00:00Z',
      expires_at: '2026-06-08T06:00:00Z',
    });
    assert.equal(res.statusCode, 201, res.body);
    const ticket = res.json() as Ticket;
    assert.equal(ticket.valid_from, '2026-06-07T06:00:00Z');
    assert.equal(ticket.attention, false);
    assert.equal(ticket.checkin_text, null);
    const claims = decodeJwt(ticket.ticket_token);
    assert.equal(claims.nbf, unix('2026-06-07T06:00:00Z'));
    assert.equal(claims.exp, unix('2026-06-08T06:00:00Z'));

    const doc = (await app().inject({ url: '/.well-known/ticket-issuer.json' })).json();
    const keys = createLocalJWKSet(doc.jwks);
    const { payload } = await jwtVerify(ticket.ticket_token, keys, {
      issuer: doc.iss,
      currentDate: new Date('2026-06-07T06:00:00Z'),
    });
    assert.equal(payload.tid, ticket.tid);
    await assert.rejects(
      jwtVerify(ticket.ticket_token, keys, { issuer: doc.iss, currentDate: new Date('2026-06-07T05:58:00Z') }),
      /nbf/,
      'a standard JOSE library refuses it before valid_from',
    );

    const reissued = await adminCall<Ticket>(app(), 'POST', `/admin/v1/tickets/${ticket.tid}/reissue`, {}, 200);
    assert.notEqual(reissued.ticket_token, ticket.ticket_token);
    assert.equal(decodeJwt(reissued.ticket_token).nbf, claims.nbf, 'a reissued token keeps nbf');
    assert.equal(reissued.valid_from, '2026-06-07T06:00:00Z');

    const plain = (await issue(eid, { holder_name: 'Any Day', ticket_type: 'GA' })).json() as Ticket;
    assert.equal(plain.valid_from, null);
    assert.equal(decodeJwt(plain.ticket_token).nbf, undefined, 'no valid_from, no nbf');
  });

  it('valid_from is kept to the second, as nbf carries it; null is allowed', async () => {
    const { eid } = await newEvent();
    const ticket = (
      await issue(eid, { holder_name: 'Ada', ticket_type: 'GA', valid_from: '2026-06-06T09:30:15.750Z' })
    ).json() as Ticket;
    assert.equal(ticket.valid_from, '2026-06-06T09:30:15Z');
    assert.equal(decodeJwt(ticket.ticket_token).nbf, unix('2026-06-06T09:30:15Z'));
    const none = await issue(eid, { holder_name: 'Bea', ticket_type: 'GA', valid_from: null });
    assert.equal(none.statusCode, 201);
    assert.equal((none.json() as Ticket).valid_from, null);
  });

  it('bad valid_from, attention or checkin_text on issue: 400 naming the field, nothing created', async () => {
    const { eid } = await newEvent();
    const base = { holder_name: 'Ada', ticket_type: 'GA' };
    assert.deepEqual(fieldsOf(await issue(eid, { ...base, valid_from: 'tomorrow' })), ['valid_from']);
    assert.deepEqual(fieldsOf(await issue(eid, { ...base, valid_from: '2026-02-30T10:00:00Z' })), ['valid_from']);
    assert.deepEqual(
      fieldsOf(await issue(eid, { ...base, valid_from: '2026-06-08T00:00:00Z', expires_at: '2026-06-07T00:00:00Z' })),
      ['valid_from'],
      'never valid: valid_from not before expires_at',
    );
    assert.deepEqual(fieldsOf(await issue(eid, { ...base, attention: 'yes' })), ['attention']);
    assert.deepEqual(fieldsOf(await issue(eid, { ...base, checkin_text: 'x'.repeat(201) })), ['checkin_text']);
    assert.deepEqual(fieldsOf(await issue(eid, { ...base, checkin_text: 'line\u0000break' })), ['checkin_text']);
    assert.deepEqual(fieldsOf(await issue(eid, { tickets: [base, { ...base, valid_from: '2026-13-01T00:00:00Z' }] })), [
      'tickets.1.valid_from',
    ]);
    assert.deepEqual(fieldsOf(await issue(eid, { tickets: [base, { ...base, attention: 1 }] })), [
      'tickets.1.attention',
    ]);
    const counters = await adminCall<{ counters: { issued: number } }>(app(), 'GET', `/admin/v1/events/${eid}`);
    assert.equal(counters.counters.issued, 0);
  });

  it('a CSV import with valid_from, attention and checkin_text columns: the tickets carry them, and the feed the notes', async () => {
    const { eid, apiKey } = await newEvent();
    const csv = [
      'holder_name,ticket_type,valid_from,attention,checkin_text,external_id',
      'Ada Lovelace,Weekend,,yes,Wheelchair: use the ramp at gate B,row-1',
      'Alan Turing,Sunday,2026-06-07T06:00:00Z,no,,row-2',
      'Grace Hopper,Saturday,2026-06-06T06:00:00Z,,"Press, collect the badge at the desk",row-3',
      'Edsger Dijkstra,Weekend,,1,,row-4',
    ].join('\n');
    const { tickets, problems } = readTicketsCsv(csv, Papa);
    assert.deepEqual(problems, []);
    const answer = await adminCall<{ tickets: Ticket[] }>(app(), 'POST', `/admin/v1/events/${eid}/tickets`, {
      tickets: tickets.map(({ line: _line, ...ticket }) => ticket),
    });
    assert.deepEqual(
      answer.tickets.map((t) => [t.holder_name, t.valid_from, t.attention, t.checkin_text]),
      [
        ['Ada Lovelace', null, true, 'Wheelchair: use the ramp at gate B'],
        ['Alan Turing', '2026-06-07T06:00:00Z', false, null],
        ['Grace Hopper', '2026-06-06T06:00:00Z', false, 'Press, collect the badge at the desk'],
        ['Edsger Dijkstra', null, true, null],
      ],
    );
    assert.equal(decodeJwt(answer.tickets[1]!.ticket_token).nbf, unix('2026-06-07T06:00:00Z'));
    const listed = await adminCall<{ tickets: Ticket[] }>(app(), 'GET', `/admin/v1/events/${eid}/tickets`);
    assert.deepEqual(
      listed.tickets.map((t) => [t.holder_name, t.valid_from, t.attention, t.checkin_text]).sort(),
      answer.tickets.map((t) => [t.holder_name, t.valid_from, t.attention, t.checkin_text]).sort(),
      'the list answers them too',
    );
    // Scanners learn notes offline: one ticket_notes change per ticket created with notes, none for the others.
    const issuedAt = issuer().clock.now().toISOString().replace('.000Z', 'Z');
    assert.deepEqual(await notesChanges(eid, apiKey), [
      {
        type: 'ticket_notes',
        tid: answer.tickets[0]!.tid,
        attention: true,
        checkin_text: 'Wheelchair: use the ramp at gate B',
        at: issuedAt,
      },
      {
        type: 'ticket_notes',
        tid: answer.tickets[2]!.tid,
        attention: false,
        checkin_text: 'Press, collect the badge at the desk',
        at: issuedAt,
      },
      { type: 'ticket_notes', tid: answer.tickets[3]!.tid, attention: true, checkin_text: null, at: issuedAt },
    ]);
    // The same file again creates nothing, and appends no notes again.
    const again = await send('POST', `/admin/v1/events/${eid}/tickets`, {
      tickets: tickets.map(({ line: _line, ...ticket }) => ticket),
    });
    assert.equal(again.statusCode, 200);
    assert.equal((await notesChanges(eid, apiKey)).length, 3);
  });

  it('PATCH refuses what it cannot take, naming the field; an unknown tid is 404', async () => {
    const { eid } = await newEvent();
    const { tid } = (await issue(eid, { holder_name: 'Ada', ticket_type: 'GA' })).json() as Ticket;
    assert.deepEqual(fieldsOf(await patch(tid, { attention: true, holder_name: 'Eve' })), ['holder_name']);
    assert.deepEqual(fieldsOf(await patch(tid, { checkin_text: 'x'.repeat(201) })), ['checkin_text']);
    assert.deepEqual(fieldsOf(await patch(tid, { attention: 'true' })), ['attention']);
    assert.deepEqual(fieldsOf(await patch(tid, { valid_from: '2026-06-07T06:00:00Z' })), ['valid_from']);
    assert.deepEqual(fieldsOf(await patch(tid, {})).sort(), ['attention', 'checkin_text', 'email', 'order_ref']);
    const unknown = await patch('tkt_01NOSUCHTICKET000000000000', { attention: true });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().error.code, 'NOT_FOUND');
    const unchanged = await adminCall<Ticket>(app(), 'GET', `/admin/v1/tickets/${tid}`);
    assert.deepEqual([unchanged.attention, unchanged.checkin_text], [false, null]);
  });

  it('PATCH changes the notes and appends exactly one ticket_notes change, as it was at that time', async () => {
    const { eid, apiKey } = await newEvent();
    const ticket = (await issue(eid, { holder_name: 'Ada', ticket_type: 'GA' })).json() as Ticket;
    assert.deepEqual(await notesChanges(eid, apiKey), [], 'a ticket without notes appends none when issued');
    const start = (await followFeed(app(), apiKey, eid)).cursor;

    issuer().clock.set('2026-06-01T13:00:00Z');
    const first = await patch(ticket.tid, { attention: true, checkin_text: '  VIP: escort to the box  ' });
    assert.equal(first.statusCode, 200, first.body);
    const changed = first.json() as Ticket;
    assert.deepEqual(
      [changed.attention, changed.checkin_text, changed.valid_from],
      [true, 'VIP: escort to the box', null],
    );
    assert.equal(changed.ticket_token, ticket.ticket_token, 'notes do not change the token');
    const read = await adminCall<Ticket>(app(), 'GET', `/admin/v1/tickets/${ticket.tid}`);
    assert.deepEqual([read.attention, read.checkin_text], [true, 'VIP: escort to the box']);

    const page = await followFeed(app(), apiKey, eid, 1000, start);
    assert.deepEqual(page.seen, [
      {
        type: 'ticket_notes',
        tid: ticket.tid,
        attention: true,
        checkin_text: 'VIP: escort to the box',
        at: '2026-06-01T13:00:00Z',
      },
    ]);

    // The same notes again change nothing, and append nothing.
    assert.equal((await patch(ticket.tid, { attention: true })).statusCode, 200);
    assert.deepEqual((await followFeed(app(), apiKey, eid, 1000, page.cursor)).seen, []);

    // A later change: one more, and the earlier change still reads as it was made.
    issuer().clock.set('2026-06-01T14:00:00Z');
    const second = (await patch(ticket.tid, { checkin_text: null })).json() as Ticket;
    assert.deepEqual([second.attention, second.checkin_text], [true, null], 'attention, absent, stays');
    issuer().clock.set('2026-06-01T14:05:00Z');
    const third = (await patch(ticket.tid, { attention: false, checkin_text: '' })).json() as Ticket;
    assert.deepEqual([third.attention, third.checkin_text], [false, null], 'an empty text is no text');
    assert.deepEqual(
      (await notesChanges(eid, apiKey)).map((c) => [c.attention, c.checkin_text, c.at]),
      [
        [true, 'VIP: escort to the box', '2026-06-01T13:00:00Z'],
        [true, null, '2026-06-01T14:00:00Z'],
        [false, null, '2026-06-01T14:05:00Z'],
      ],
    );
    issuer().clock.set(T0);
  });
});
