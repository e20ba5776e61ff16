import assert from 'node:assert/strict';
import { adminCall } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';
import { type Person, personWithRole, signIn } from '../helpers/people.ts';

/**
 * CONTRACT.md, "Abuse of the people routes": a viewer gets no `ticket_token` (the field is absent) and
 * no printed sheet. A ticket's token is what lets its holder in; a read-only person must not be able to
 * print one. Tried as a viewer would, with a personal token and with a console session: every answer
 * that carries tickets is searched for the tokens themselves, not only for the field's name.
 */

interface Ticket {
  tid: string;
  ticket_token?: string;
}

await eachBackend('a viewer gets no ticket token and no QR code', ({ it, issuer }) => {
  let eid: string;
  let tickets: Ticket[];
  const people = {} as Record<'viewer' | 'supervisor' | 'manager', Person>;

  it('sets up an event with tickets, a viewer, a supervisor and a manager of it', async () => {
    const app = issuer().app;
    ({ eid } = await adminCall<{ eid: string }>(app, 'POST', '/admin/v1/events', {
      name: 'Quiet Reading',
      event_date: '2026-06-01T10:00:00Z',
    }));
    ({ tickets } = await adminCall<{ tickets: Ticket[] }>(app, 'POST', `/admin/v1/events/${eid}/tickets`, {
      tickets: [
        { holder_name: 'Ada Lovelace', ticket_type: 'GA' },
        { holder_name: 'Alan Turing', ticket_type: 'VIP' },
      ],
    }));
    assert.ok(tickets.every((t) => typeof t.ticket_token === 'string' && t.ticket_token.length > 20));
    for (const role of ['viewer', 'supervisor', 'manager'] as const) {
      people[role] = await personWithRole(app, role, role === 'manager' ? null : [eid]);
    }
  });

  /** Every read of tickets a viewer may make, by token and by console session. */
  const ticketReads = () => [
    `/admin/v1/tickets/${tickets[0]!.tid}`,
    `/admin/v1/events/${eid}/tickets`,
    `/admin/v1/events/${eid}/tickets?limit=1`,
    `/admin/v1/events/${eid}/tickets?q=ada`,
    `/admin/v1/events/${eid}/tickets?q=${tickets[1]!.tid}`,
  ];

  it('no ticket answer a viewer gets holds a ticket token, by field or by value', async () => {
    const session = await signIn(issuer().app, people.viewer.email);
    for (const headers of [people.viewer.headers, session]) {
      for (const url of ticketReads()) {
        const res = await issuer().app.inject({ url, headers });
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
        const body = res.json() as Ticket & { tickets?: Ticket[] };
        const seen = body.tickets ?? [body];
        assert.ok(seen.length > 0, url);
        for (const ticket of seen) assert.equal('ticket_token' in ticket, false, `${url}: ${ticket.tid}`);
        for (const { ticket_token } of tickets) assert.equal(res.body.includes(ticket_token!), false, url);
      }
    }
  });

  it('the QR codes are refused to a viewer (403 for the role, whatever the ticket)', async () => {
    for (const format of ['svg', 'png']) {
      for (const tid of [tickets[0]!.tid, '01JZZZZZZZZZZZZZZZZZZZZZZZ']) {
        const res = await issuer().app.inject({
          url: `/admin/v1/tickets/${tid}/qr.${format}`,
          headers: people.viewer.headers,
        });
        assert.equal(res.statusCode, 403, `${format} ${tid}: ${res.body}`);
        assert.deepEqual(res.json().error.details, { reason: 'role', action: 'ticket_token.read', role: 'viewer' });
      }
    }
  });

  it('a supervisor and a manager still get the token and the QR code', async () => {
    for (const role of ['supervisor', 'manager'] as const) {
      const headers = people[role].headers;
      for (const url of ticketReads()) {
        const res = await issuer().app.inject({ url, headers });
        const body = res.json() as Ticket & { tickets?: Ticket[] };
        for (const ticket of body.tickets ?? [body]) assert.equal(typeof ticket.ticket_token, 'string', url);
      }
      const qr = await issuer().app.inject({ url: `/admin/v1/tickets/${tickets[0]!.tid}/qr.svg`, headers });
      assert.equal(qr.statusCode, 200, `${role}: ${qr.body}`);
      assert.match(qr.headers['content-type'] as string, /^image\/svg\+xml/);
    }
  });

  it('the OpenAPI document says the token may be absent', async () => {
    const doc = (await issuer().app.inject({ url: '/openapi.json' })).json();
    const ticket = doc.components.schemas.Ticket;
    assert.ok(ticket.properties.ticket_token, 'still described');
    assert.equal((ticket.required as string[]).includes('ticket_token'), false);
    assert.match(ticket.properties.ticket_token.description, /viewer/);
  });
});
