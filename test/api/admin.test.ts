import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, adminCall, BASE_URL, scenario, testIssuer, type TestIssuer } from '../helpers/app.ts';

describe('organizer admin API', () => {
  let t: TestIssuer;

  before(async () => {
    t = await testIssuer();
  });
  after(() => t.close());

  const createEvent = (body: Record<string, unknown> = {}) =>
    adminCall<{ eid: string }>(t.app, 'POST', '/admin/v1/events', {
      name: 'Opera Gala',
      event_date: '2026-07-01T19:00:00Z',
      ...body,
    });

  describe('events', () => {
    it('creates an event with an evt_ ULID id', async () => {
      const event = await createEvent({ ends_at: '2026-07-01T23:00:00Z' });
      assert.match(event.eid, /^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
      assert.deepEqual(event, {
        eid: event.eid,
        name: 'Opera Gala',
        event_date: '2026-07-01T19:00:00Z',
        ends_at: '2026-07-01T23:00:00Z',
        created_at: '2026-06-01T12:00:00Z',
        // The spec's behaviour until changed (PATCH): no re-entry, no capacity.
        reentry: false,
        capacity: null,
        // Event days in UTC from midnight, no automatic exit, until changed.
        timezone: 'UTC',
        day_starts_at: '00:00',
        auto_exit: false,
      });
    });

    it('refuses an end before the start and impossible dates', async () => {
      for (const body of [
        { ends_at: '2026-07-01T18:00:00Z' },
        { event_date: '2026-02-30T19:00:00Z' },
        { event_date: 'tomorrow' },
      ]) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/admin/v1/events',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
          payload: { name: 'x', event_date: '2026-07-01T19:00:00Z', ...body },
        });
        assert.equal(res.statusCode, 400, JSON.stringify(body));
        assert.equal(res.json().error.code, 'INVALID_REQUEST');
      }
    });

    it('lists events a page at a time', async () => {
      for (let i = 0; i < 3; i++) await createEvent({ name: `Paged ${i}` });
      const first = await adminCall<{ events: { eid: string }[]; next_cursor: string }>(
        t.app,
        'GET',
        '/admin/v1/events?limit=2',
      );
      assert.equal(first.events.length, 2);
      assert.ok(first.next_cursor);
      const rest = await adminCall<{ events: { eid: string }[] }>(
        t.app,
        'GET',
        `/admin/v1/events?limit=1000&cursor=${first.next_cursor}`,
      );
      const all = [...first.events, ...rest.events].map((e) => e.eid);
      assert.equal(new Set(all).size, all.length, 'no event appears twice');
      const bad = await t.app.inject({
        url: '/admin/v1/events?limit=0',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert.equal(bad.statusCode, 400);
    });

    it('reads one event with its counters, only under counters: issued, checked_in, revoked, conflicts', async () => {
      const s = await scenario(t.app);
      await adminCall(t.app, 'POST', `/admin/v1/events/${s.eid}/tickets`, { holder_name: 'B', ticket_type: 'VIP' });
      await adminCall(t.app, 'POST', `/admin/v1/tickets/${s.tid}/revoke`);
      const event = await adminCall<Record<string, unknown>>(t.app, 'GET', `/admin/v1/events/${s.eid}`);
      assert.deepEqual(event.counters, { issued: 2, checked_in: 0, revoked: 1, conflicts: 0 });
      for (const flat of ['issued', 'checked_in', 'revoked', 'conflicts']) {
        assert.ok(!(flat in event), `the counters have one shape: no flat ${flat}`);
      }
      const missing = await t.app.inject({
        url: '/admin/v1/events/evt_nope',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.json().error.code, 'NOT_FOUND');
    });
  });

  describe('tickets', () => {
    it('issues one ticket with a ULID tid and its ticket_token', async () => {
      const { eid } = await createEvent();
      const ticket = await adminCall<Record<string, unknown>>(t.app, 'POST', `/admin/v1/events/${eid}/tickets`, {
        holder_name: 'Clara Schumann',
        ticket_type: 'Balcony',
        expires_at: '2026-07-02T00:00:00Z',
      });
      assert.match(String(ticket.tid), /^[0-9A-HJKMNP-TV-Z]{26}$/);
      assert.match(String(ticket.ticket_token), /^[\w-]+\.[\w-]+\.[\w-]+$/);
      assert.equal(ticket.status, 'valid');
      assert.equal(ticket.expires_at, '2026-07-02T00:00:00Z');
      const read = await adminCall(t.app, 'GET', `/admin/v1/tickets/${ticket.tid}`);
      assert.deepEqual(read, ticket);
    });

    it('issues 10,000 tickets in one request and one transaction', async () => {
      const { eid } = await createEvent();
      const tickets = Array.from({ length: 10_000 }, (_, i) => ({ holder_name: `Guest ${i}`, ticket_type: 'GA' }));
      const res = await adminCall<{ tickets: { tid: string; ticket_token: string }[] }>(
        t.app,
        'POST',
        `/admin/v1/events/${eid}/tickets`,
        { tickets },
      );
      assert.equal(res.tickets.length, 10_000);
      assert.equal(new Set(res.tickets.map((x) => x.tid)).size, 10_000);
      assert.ok(res.tickets.every((x) => x.ticket_token.split('.').length === 3));
      const event = await adminCall<{ counters: { issued: number } }>(t.app, 'GET', `/admin/v1/events/${eid}`);
      assert.equal(event.counters.issued, 10_000);
    });

    it('a bulk request with one bad ticket issues none; more than 10,000 is refused', async () => {
      const { eid } = await createEvent();
      const bad = [
        { holder_name: 'A', ticket_type: 'GA' },
        { holder_name: 'B', ticket_type: 'GA', expires_at: '2026-13-01T00:00:00Z' },
      ];
      const res = await t.app.inject({
        method: 'POST',
        url: `/admin/v1/events/${eid}/tickets`,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        payload: { tickets: bad },
      });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().error.details.fields[0].field, 'tickets.1.expires_at');
      const tooMany = await t.app.inject({
        method: 'POST',
        url: `/admin/v1/events/${eid}/tickets`,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        payload: { tickets: Array.from({ length: 10_001 }, () => ({ holder_name: 'A', ticket_type: 'GA' })) },
      });
      assert.equal(tooMany.statusCode, 400);
      const event = await adminCall<{ counters: { issued: number } }>(t.app, 'GET', `/admin/v1/events/${eid}`);
      assert.equal(event.counters.issued, 0);
    });

    it('a single ticket needs holder_name and ticket_type; tickets for an unknown event are 404', async () => {
      const { eid } = await createEvent();
      const res = await t.app.inject({
        method: 'POST',
        url: `/admin/v1/events/${eid}/tickets`,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        payload: { holder_name: 'A' },
      });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json().error.details.fields, [{ field: 'ticket_type', problem: 'required' }]);
      const unknown = await t.app.inject({
        method: 'POST',
        url: '/admin/v1/events/evt_nope/tickets',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        payload: { holder_name: 'A', ticket_type: 'GA' },
      });
      assert.equal(unknown.statusCode, 404);
    });

    it('revokes a ticket once: a second revoke keeps the first time and reason', async () => {
      const s = await scenario(t.app);
      const first = await adminCall(t.app, 'POST', `/admin/v1/tickets/${s.tid}/revoke`, { reason: 'refund' });
      assert.equal(first.status, 'revoked');
      assert.equal(first.revoke_reason, 'refund');
      t.clock.advance(60_000);
      const second = await adminCall(t.app, 'POST', `/admin/v1/tickets/${s.tid}/revoke`, { reason: 'other' });
      t.clock.advance(-60_000);
      assert.equal(second.revoked_at, first.revoked_at);
      assert.equal(second.revoke_reason, 'refund');
      const missing = await t.app.inject({
        method: 'POST',
        url: '/admin/v1/tickets/01J00000000000000000000000/revoke',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert.equal(missing.statusCode, 404);
    });

    it('lists an event’s tickets a page at a time', async () => {
      const { eid } = await createEvent();
      const tickets = Array.from({ length: 5 }, (_, i) => ({ holder_name: `G${i}`, ticket_type: 'GA' }));
      await adminCall(t.app, 'POST', `/admin/v1/events/${eid}/tickets`, { tickets });
      const page = await adminCall<{ tickets: unknown[]; next_cursor: string }>(
        t.app,
        'GET',
        `/admin/v1/events/${eid}/tickets?limit=3`,
      );
      assert.equal(page.tickets.length, 3);
      const rest = await adminCall<{ tickets: unknown[]; next_cursor: null }>(
        t.app,
        'GET',
        `/admin/v1/events/${eid}/tickets?limit=3&cursor=${page.next_cursor}`,
      );
      assert.equal(rest.tickets.length, 2);
      assert.equal(rest.next_cursor, null);
    });
  });

  describe('enrolment tokens, scanners and API keys', () => {
    it('creates a token with the st_ prefix, a setup URI carrying issuer and token, and its QR codes', async () => {
      const { eid } = await createEvent();
      const res = await adminCall<Record<string, string>>(t.app, 'POST', `/admin/v1/events/${eid}/enrollment-tokens`, {
        gate_id: 'east',
      });
      assert.match(res.token!, /^st_[A-Za-z0-9_-]{43}$/);
      assert.match(res.token_id!, /^set_/);
      assert.equal(res.gate_id, 'east');
      assert.equal(res.expires_at, '2026-06-08T12:00:00Z', 'a week by default');
      assert.equal(res.key_expires_at, '2026-07-02T19:00:00Z', 'the event end plus 24 hours');
      const uri = new URL(res.setup_uri!);
      assert.equal(uri.protocol, 'ticket-issuer:');
      assert.equal(uri.searchParams.get('iss'), BASE_URL);
      assert.equal(uri.searchParams.get('token'), res.token);
      assert.match(res.setup_qr_svg!, /^<svg[\s\S]*<\/svg>\s*$/);
      assert.match(res.setup_qr_png!, /^data:image\/png;base64,/);
      // The web scanner's link carries the setup URI in its fragment, which no server ever receives.
      assert.equal(res.web_scanner_url, `${BASE_URL}/scan/#setup=${encodeURIComponent(res.setup_uri!)}`);
      assert.match(res.web_scanner_qr_png!, /^data:image\/png;base64,/);
      assert.notEqual(res.web_scanner_qr_png, res.setup_qr_png);
    });

    it('refuses a token or an API key that would be expired on arrival', async () => {
      const { eid } = await createEvent();
      for (const body of [{ expires_at: '2026-06-01T11:00:00Z' }, { key_expires_at: '2026-06-01T12:00:00Z' }]) {
        const res = await t.app.inject({
          method: 'POST',
          url: `/admin/v1/events/${eid}/enrollment-tokens`,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
          payload: body,
        });
        assert.equal(res.statusCode, 400, JSON.stringify(body));
        assert.equal(res.json().error.details.fields[0].field, Object.keys(body)[0]);
      }
      const past = await createEvent({ event_date: '2026-05-01T19:00:00Z' });
      const res = await t.app.inject({
        method: 'POST',
        url: `/admin/v1/events/${past.eid}/enrollment-tokens`,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        payload: {},
      });
      assert.equal(res.statusCode, 400);
      assert.match(res.json().error.details.fields[0].problem, /give key_expires_at/);
    });

    it('revoking an unused token is idempotent', async () => {
      const s = await scenario(t.app);
      const { token_id } = await adminCall<{ token_id: string }>(
        t.app,
        'POST',
        `/admin/v1/events/${s.eid}/enrollment-tokens`,
        {},
      );
      const once = await adminCall(t.app, 'POST', `/admin/v1/enrollment-tokens/${token_id}/revoke`);
      const twice = await adminCall(t.app, 'POST', `/admin/v1/enrollment-tokens/${token_id}/revoke`);
      assert.equal(twice.revoked_at, once.revoked_at);
      const missing = await t.app.inject({
        method: 'POST',
        url: '/admin/v1/enrollment-tokens/set_nope/revoke',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert.equal(missing.statusCode, 404);
    });

    it('revoking an API key shows in the scanner record', async () => {
      const s = await scenario(t.app);
      const revoked = await adminCall(t.app, 'POST', `/admin/v1/api-keys/${s.apiKeyId}/revoke`);
      assert.equal(revoked.revoked_at, '2026-06-01T12:00:00Z');
      const { scanners } = await adminCall<{ scanners: { revoked_at: string | null }[] }>(
        t.app,
        'GET',
        `/admin/v1/events/${s.eid}/scanners`,
      );
      assert.equal(scanners[0]!.revoked_at, '2026-06-01T12:00:00Z');
      const missing = await t.app.inject({
        method: 'POST',
        url: '/admin/v1/api-keys/sck_nope/revoke',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert.equal(missing.statusCode, 404);
    });
  });
});
