import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ADMIN_TOKEN, adminCall, enrollScanner, T0 } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';

interface RosterTicket {
  tid: string;
  holder_name: string;
  ticket_type: string;
  order_ref: string | null;
  attention: boolean;
  checkin_text: string | null;
  short_code: string;
  revoked: boolean;
}
interface RosterPage {
  tickets: RosterTicket[];
  next_cursor: string;
  has_more: boolean;
}

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });

await eachBackend('the offline roster and scanner clocks', ({ it, issuer }) => {
  const app = () => issuer().app;
  const newEvent = async () => {
    const { eid } = await adminCall<{ eid: string }>(app(), 'POST', '/admin/v1/events', {
      name: 'Roster Fest',
      event_date: '2026-06-01T10:00:00Z',
    });
    const searching = await enrollScanner(app(), eid, randomUUID(), undefined, { allow_search: true });
    return { eid, apiKey: searching.apiKey };
  };
  const issue = async (eid: string, tickets: Record<string, unknown>[]) =>
    (await adminCall<{ tickets: RosterTicket[] }>(app(), 'POST', `/admin/v1/events/${eid}/tickets`, { tickets }))
      .tickets;
  const roster = async (apiKey: string, eid: string, cursor?: string, limit?: number) => {
    const query = new URLSearchParams({
      ...(cursor === undefined ? {} : { cursor }),
      ...(limit === undefined ? {} : { limit: String(limit) }),
    });
    const res = await app().inject({
      method: 'GET',
      url: `/api/v1/events/${eid}/roster?${query.toString()}`,
      headers: bearer(apiKey),
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as RosterPage;
  };
  /** Every page from a cursor: the lines read, and the cursor to ask from next. */
  const follow = async (apiKey: string, eid: string, from?: string, limit = 2) => {
    const lines: RosterTicket[] = [];
    let cursor = from;
    for (;;) {
      const page = await roster(apiKey, eid, cursor, limit);
      lines.push(...page.tickets);
      cursor = page.next_cursor;
      if (!page.has_more) return { lines, cursor };
    }
  };

  it('a key without allow_search gets 403 (the envelope, reason allow_search); with it, the roster', async () => {
    const { eid, apiKey } = await newEvent();
    const plain = await enrollScanner(app(), eid);
    const res = await app().inject({
      method: 'GET',
      url: `/api/v1/events/${eid}/roster`,
      headers: bearer(plain.apiKey),
    });
    assert.equal(res.statusCode, 403);
    const body = res.json() as { error: { code: string; details: { reason?: string } } };
    assert.equal(body.error.code, 'FORBIDDEN');
    assert.equal(body.error.details.reason, 'allow_search');
    assert.deepEqual((await roster(apiKey, eid)).tickets, []);
  });

  it('the roster lists every ticket with its order, own notes and short code, a page at a time', async () => {
    const { eid, apiKey } = await newEvent();
    const issued = await issue(eid, [
      { holder_name: 'Anna', ticket_type: 'GA', order_ref: 'O-1' },
      { holder_name: 'Ben', ticket_type: 'VIP', order_ref: 'O-1', attention: true, checkin_text: 'Wristband' },
      { holder_name: 'Cleo', ticket_type: 'GA' },
      { holder_name: 'Dora', ticket_type: 'GA' },
      { holder_name: 'Eve', ticket_type: 'GA' },
    ]);
    const { lines } = await follow(apiKey, eid);
    assert.deepEqual(lines.map((l) => l.tid).sort(), issued.map((t) => t.tid).sort());
    const ben = lines.find((l) => l.holder_name === 'Ben');
    const benIssued = issued.find((t) => t.holder_name === 'Ben')!;
    assert.deepEqual(ben, {
      tid: benIssued.tid,
      holder_name: 'Ben',
      ticket_type: 'VIP',
      order_ref: 'O-1',
      attention: true,
      checkin_text: 'Wristband',
      short_code: benIssued.short_code,
      revoked: false,
    });
    const first = await roster(apiKey, eid, undefined, 2);
    assert.equal(first.tickets.length, 2);
    assert.equal(first.has_more, true);
  });

  it('from a cursor, only the tickets changed since come (order, notes, revocation, new ones), each again in full', async () => {
    const { eid, apiKey } = await newEvent();
    const [a, b, c, d] = await issue(
      eid,
      ['Anna', 'Ben', 'Cleo', 'Dora'].map((holder_name) => ({ holder_name, ticket_type: 'GA' })),
    );
    const synced = await follow(apiKey, eid);
    assert.equal(synced.lines.length, 4);
    assert.deepEqual((await roster(apiKey, eid, synced.cursor)).tickets, [], 'nothing changed yet');

    await adminCall(app(), 'PATCH', `/admin/v1/tickets/${a!.tid}`, { order_ref: 'O-9' });
    await adminCall(app(), 'PATCH', `/admin/v1/tickets/${b!.tid}`, { checkin_text: 'Press pass' });
    await adminCall(app(), 'POST', `/admin/v1/tickets/${c!.tid}/revoke`, {});
    // An email is no scanner's business: the ticket does not come again for it.
    await adminCall(app(), 'PATCH', `/admin/v1/tickets/${d!.tid}`, { email: 'dora@example.org' });
    const [e] = await issue(eid, [{ holder_name: 'Eve', ticket_type: 'GA', order_ref: 'O-9' }]);

    const changed = await follow(apiKey, eid, synced.cursor);
    assert.deepEqual(
      changed.lines.map((l) => l.tid),
      [a!.tid, b!.tid, c!.tid, e!.tid],
      'in the order of their changes',
    );
    const byTid = new Map(changed.lines.map((l) => [l.tid, l]));
    assert.equal(byTid.get(a!.tid)!.order_ref, 'O-9');
    assert.equal(byTid.get(b!.tid)!.checkin_text, 'Press pass');
    assert.equal(byTid.get(c!.tid)!.revoked, true, 'a revoked ticket is marked so a device can drop it');
    assert.equal(byTid.get(a!.tid)!.revoked, false);
    assert.deepEqual((await roster(apiKey, eid, changed.cursor)).tickets, []);
  });

  it('a cursor at the end stays usable: next_cursor is always present, and answers later changes', async () => {
    const { eid, apiKey } = await newEvent();
    const empty = await roster(apiKey, eid);
    assert.equal(typeof empty.next_cursor, 'string');
    const [late] = await issue(eid, [{ holder_name: 'Late', ticket_type: 'GA' }]);
    const after = await roster(apiKey, eid, empty.next_cursor);
    assert.deepEqual(
      after.tickets.map((t) => t.tid),
      [late!.tid],
    );
    const again = await roster(apiKey, eid, after.next_cursor);
    assert.deepEqual(again.tickets, []);
    assert.equal(again.next_cursor, after.next_cursor);
  });

  it('an upload with sent_at keeps the scanner’s clock offset (device minus issuer, seconds), listed for the organizer', async () => {
    const { eid } = await newEvent();
    const scannerId = randomUUID();
    const { apiKey, apiKeyId } = await enrollScanner(app(), eid, scannerId);
    const [ticket] = await issue(eid, [{ holder_name: 'Anna', ticket_type: 'GA' }]);
    const offsetOf = async () => {
      const list = (
        await app().inject({ method: 'GET', url: `/admin/v1/events/${eid}/scanners`, headers: admin })
      ).json().scanners as { api_key_id: string; clock_offset_s: number | null }[];
      return list.find((s) => s.api_key_id === apiKeyId)!.clock_offset_s;
    };
    assert.equal(await offsetOf(), null, 'before any upload with sent_at');
    const upload = (sentAt: string | undefined) =>
      app().inject({
        method: 'POST',
        url: '/api/v1/tickets/scans',
        headers: bearer(apiKey),
        payload: {
          ...(sentAt === undefined ? {} : { sent_at: sentAt }),
          scans: [
            {
              action: 'check_in',
              tid: ticket!.tid,
              eid,
              scanned_at: T0,
              scanner_id: scannerId,
              idempotency_key: randomUUID(),
            },
          ],
        },
      });
    // The issuer's clock reads T0; the device's reads ten minutes later: it runs fast.
    const fast = await upload(new Date(Date.parse(T0) + 600_000).toISOString());
    assert.equal(fast.statusCode, 200);
    assert.equal(await offsetOf(), 600);
    await upload(new Date(Date.parse(T0) - 90_000).toISOString());
    assert.equal(await offsetOf(), -90, 'the last one is kept');
    await upload(undefined);
    assert.equal(await offsetOf(), -90, 'an upload without sent_at changes nothing');
    const bad = await upload('yesterday');
    assert.equal(bad.statusCode, 400);
    const fields = (bad.json() as { error: { details: { fields: { field: string }[] } } }).error.details.fields;
    assert.ok(fields.some((f) => f.field === 'sent_at'));
  });

  it('the rules answer carries server_time (the issuer’s clock) for devices to measure their offset', async () => {
    const { eid, apiKey } = await newEvent();
    const res = await app().inject({ method: 'GET', url: `/api/v1/events/${eid}/rules`, headers: bearer(apiKey) });
    assert.equal(res.statusCode, 200);
    assert.equal(Date.parse((res.json() as { server_time: string }).server_time), Date.parse(T0));
  });
});
