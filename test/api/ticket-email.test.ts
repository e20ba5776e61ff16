import assert from 'node:assert/strict';
import Papa from 'papaparse';
import { ADMIN_TOKEN, adminCall, BASE_URL } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';
import { personWithRole } from '../helpers/people.ts';

/**
 * CONTRACT.md, "Tickets reach their holders": tickets gain `email` (on issue, in the CSV import, by
 * PATCH; at most 254 characters with one `@`, else 400 naming `email`) and `holder_url`
 * (`<BASE_URL>/t/<holder_token>`, random-looking, at least 128 bits, neither the tid nor the ticket
 * token), in every admin ticket answer and never for a viewer.
 */

interface Ticket {
  tid: string;
  ticket_token?: string;
  email?: string | null;
  holder_url?: string;
}
interface Problem {
  error: { code: string; details: { fields: { field: string; problem: string }[] } };
}

const csvPath = '../../console/js/csv.js';
const { readTicketsCsv } = (await import(csvPath)) as {
  readTicketsCsv: (
    text: string,
    papa: typeof Papa,
  ) => { tickets: Record<string, unknown>[]; problems: { line: number; message: string }[] };
};

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const HOLDER_URL = new RegExp(`^${BASE_URL.replace(/\./g, '\\.')}/t/([A-Za-z0-9_-]{22,})$`);

await eachBackend('tickets carry the holder’s email and their holder page link', ({ it, issuer }) => {
  const app = () => issuer().app;
  let eid: string;
  const send = (method: 'POST' | 'PATCH' | 'GET', url: string, payload?: unknown, headers = admin) =>
    app().inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
  const issue = (payload: unknown) => send('POST', `/admin/v1/events/${eid}/tickets`, payload);
  const refusedFields = (res: { statusCode: number; json: () => unknown }) => {
    assert.equal(res.statusCode, 400);
    const body = res.json() as Problem;
    assert.equal(body.error.code, 'INVALID_REQUEST');
    return body.error.details.fields.map((f) => f.field);
  };

  it('sets up an event', async () => {
    ({ eid } = await adminCall<{ eid: string }>(app(), 'POST', '/admin/v1/events', {
      name: 'Mail Fest',
      event_date: '2026-06-05T10:00:00Z',
    }));
  });

  it('a ticket issued with an email answers it, trimmed, with its holder_url; without one, email null', async () => {
    const res = await issue({ holder_name: 'Ada', ticket_type: 'GA', email: '  ada@example.org ' });
    assert.equal(res.statusCode, 201, res.body);
    const ticket = res.json() as Ticket;
    assert.equal(ticket.email, 'ada@example.org');
    const token = HOLDER_URL.exec(ticket.holder_url ?? '')?.[1];
    assert.ok(token, ticket.holder_url);
    assert.ok(Buffer.from(token, 'base64url').length >= 16, 'at least 128 bits');
    assert.notEqual(token, ticket.tid);
    assert.equal(ticket.ticket_token!.includes(token), false);
    assert.equal(token.includes(ticket.tid), false);
    const plain = (await issue({ holder_name: 'Bob', ticket_type: 'GA' })).json() as Ticket;
    assert.equal(plain.email, null);
    assert.match(plain.holder_url!, HOLDER_URL);
    assert.notEqual(plain.holder_url, ticket.holder_url);
  });

  it('every admin ticket answer carries email and holder_url, the same link each time', async () => {
    const created = (await issue({ holder_name: 'Cy', ticket_type: 'GA', email: 'cy@example.org' })).json() as Ticket;
    const answers = [
      (await send('GET', `/admin/v1/tickets/${created.tid}`)).json() as Ticket,
      ((await send('GET', `/admin/v1/events/${eid}/tickets`)).json() as { tickets: Ticket[] }).tickets.find(
        (t) => t.tid === created.tid,
      )!,
      ((await send('GET', `/admin/v1/events/${eid}/tickets?q=cy`)).json() as { tickets: Ticket[] }).tickets[0]!,
      (await send('PATCH', `/admin/v1/tickets/${created.tid}`, { attention: true })).json() as Ticket,
      (await send('POST', `/admin/v1/tickets/${created.tid}/reissue`, {})).json() as Ticket,
      (await send('POST', `/admin/v1/tickets/${created.tid}/revoke`, {})).json() as Ticket,
    ];
    for (const answer of answers) {
      assert.equal(answer.tid, created.tid);
      assert.equal(answer.email, 'cy@example.org');
      assert.equal(answer.holder_url, created.holder_url, 'the link outlives a reissue');
    }
  });

  it('an email that is not one is 400 naming email (or tickets.N.email), and nothing is created', async () => {
    const bad = [
      'no-at-sign',
      'two@@example.org',
      'a@b@c',
      '@example.org',
      'ada@',
      'ada lovelace@example.org',
      `${'a'.repeat(250)}@b.cd`,
      'tab\t@example.org',
    ];
    for (const email of bad) {
      assert.deepEqual(refusedFields(await issue({ holder_name: 'X', ticket_type: 'GA', email })), ['email'], email);
    }
    const before = ((await send('GET', `/admin/v1/events/${eid}/tickets`)).json() as { tickets: Ticket[] }).tickets;
    const bulk = await issue({
      tickets: [
        { holder_name: 'Fine', ticket_type: 'GA', email: 'fine@example.org' },
        { holder_name: 'Wrong', ticket_type: 'GA', email: 'wrong.example.org' },
      ],
    });
    assert.deepEqual(refusedFields(bulk), ['tickets.1.email']);
    const after = ((await send('GET', `/admin/v1/events/${eid}/tickets`)).json() as { tickets: Ticket[] }).tickets;
    assert.equal(after.length, before.length);
    // 254 characters exactly is taken.
    const longest = `${'a'.repeat(64)}@${'b'.repeat(184)}.test`;
    assert.equal(longest.length, 254);
    const ok = await issue({ holder_name: 'Long', ticket_type: 'GA', email: longest });
    assert.equal(ok.statusCode, 201, ok.body);
  });

  it('PATCH sets, changes and removes the email; a bad one is 400 naming email and changes nothing', async () => {
    const { tid } = (await issue({ holder_name: 'Dee', ticket_type: 'GA' })).json() as Ticket;
    const patch = (payload: unknown) => send('PATCH', `/admin/v1/tickets/${tid}`, payload);
    assert.equal(((await patch({ email: 'dee@example.org' })).json() as Ticket).email, 'dee@example.org');
    assert.deepEqual(refusedFields(await patch({ email: 'dee at example.org' })), ['email']);
    assert.equal(((await send('GET', `/admin/v1/tickets/${tid}`)).json() as Ticket).email, 'dee@example.org');
    assert.equal(((await patch({ email: 'żółć@example.pl' })).json() as Ticket).email, 'żółć@example.pl');
    assert.equal(((await patch({ email: '' })).json() as Ticket).email, null);
    assert.equal(((await patch({ email: 'dee@example.org' })).json() as Ticket).email, 'dee@example.org');
    assert.equal(((await patch({ email: null })).json() as Ticket).email, null);
    assert.deepEqual(refusedFields(await patch({})).sort(), ['attention', 'checkin_text', 'email', 'order_ref']);
  });

  it('the CSV import reads an email column, checks it as the issuer does, and the tickets carry it', async () => {
    const csv = 'holder_name,ticket_type,email\nEve,GA,eve@example.org\nFay,GA,\n';
    const read = readTicketsCsv(csv, Papa);
    assert.deepEqual(read.problems, []);
    const res = await issue({ tickets: read.tickets.map(({ line: _line, ...ticket }) => ticket) });
    assert.equal(res.statusCode, 201, res.body);
    const { tickets } = res.json() as { tickets: Ticket[] };
    assert.deepEqual(
      tickets.map((t) => t.email),
      ['eve@example.org', null],
    );
    assert.ok(tickets.every((t) => HOLDER_URL.test(t.holder_url ?? '')));
    const wrong = readTicketsCsv('holder_name,ticket_type,email\nGus,GA,gus.example.org\n', Papa);
    assert.deepEqual(
      wrong.problems.map((p) => p.line),
      [2],
    );
    assert.match(wrong.problems[0]!.message, /email/);
  });

  it('a viewer gets neither email nor holder_url, by field or by value; a supervisor gets both', async () => {
    const created = (await issue({ holder_name: 'Hal', ticket_type: 'GA', email: 'hal@example.org' })).json() as Ticket;
    const viewer = await personWithRole(app(), 'viewer', [eid]);
    const supervisor = await personWithRole(app(), 'supervisor', [eid]);
    const token = HOLDER_URL.exec(created.holder_url!)![1]!;
    for (const url of [`/admin/v1/tickets/${created.tid}`, `/admin/v1/events/${eid}/tickets`]) {
      const seen = await send('GET', url, undefined, viewer.headers);
      assert.equal(seen.statusCode, 200, seen.body);
      assert.equal(seen.body.includes('hal@example.org'), false, url);
      assert.equal(seen.body.includes(token), false, url);
      assert.equal(/"email"|"holder_url"/.test(seen.body), false, url);
      const full = await send('GET', url, undefined, supervisor.headers);
      assert.ok(full.body.includes('hal@example.org') && full.body.includes(created.holder_url!), url);
    }
  });
});
