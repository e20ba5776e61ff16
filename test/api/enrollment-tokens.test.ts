import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ADMIN_TOKEN, adminCall, T0 } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';

interface Listed {
  token_id: string;
  gate_id: string | null;
  expires_at: string;
  key_expires_at: string;
  created_at: string;
  status: string;
  used_at: string | null;
  scanner_id: string | null;
  scanner_name: string | null;
}

const MINUTE = 60_000;
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * MINUTE).toISOString().replace('.000Z', 'Z');

await eachBackend('GET /admin/v1/events/{eid}/enrollment-tokens', ({ it, issuer }) => {
  const app = () => issuer().app;
  const list = (eid: string) =>
    adminCall<{ enrollment_tokens: Listed[] }>(app(), 'GET', `/admin/v1/events/${eid}/enrollment-tokens`);
  const create = (eid: string, body: Record<string, unknown> = {}) =>
    adminCall<{ token_id: string; token: string }>(app(), 'POST', `/admin/v1/events/${eid}/enrollment-tokens`, body);

  it('lists open, used (by a named scanner), revoked and expired tokens, newest first, never the token itself', async () => {
    const clock = issuer().clock;
    clock.set(T0);
    const { eid } = await adminCall<{ eid: string }>(app(), 'POST', '/admin/v1/events', {
      name: 'Tokens',
      event_date: '2026-06-02T18:00:00Z',
    });
    const expiring = await create(eid, { gate_id: 'north', expires_at: at(30) });
    clock.set(at(1));
    const used = await create(eid, { gate_id: 'north' });
    clock.set(at(2));
    const revoked = await create(eid);
    clock.set(at(3));
    const open = await create(eid, { gate_id: 'south', key_expires_at: '2026-06-04T00:00:00Z' });
    clock.set(at(4));
    const scannerId = randomUUID();
    const enrolled = await app().inject({
      method: 'POST',
      url: '/api/v1/scanners/enroll',
      payload: { token: used.token, scanner_id: scannerId, scanner_name: 'North phone 1' },
    });
    assert.equal(enrolled.statusCode, 200);
    await adminCall(app(), 'POST', `/admin/v1/enrollment-tokens/${revoked.token_id}/revoke`);
    clock.set(at(31));

    const res = await app().inject({
      url: `/admin/v1/events/${eid}/enrollment-tokens`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(res.statusCode, 200);
    for (const secret of [expiring, used, revoked, open].map((t) => t.token)) {
      assert.ok(!res.body.includes(secret), 'the secret token is never shown again');
    }
    assert.deepEqual(res.json(), {
      enrollment_tokens: [
        {
          token_id: open.token_id,
          gate_id: 'south',
          expires_at: '2026-06-08T12:03:00Z',
          key_expires_at: '2026-06-04T00:00:00Z',
          created_at: at(3),
          status: 'open',
          used_at: null,
          scanner_id: null,
          scanner_name: null,
          allow_search: false,
        },
        {
          token_id: revoked.token_id,
          gate_id: null,
          expires_at: '2026-06-08T12:02:00Z',
          key_expires_at: '2026-06-03T18:00:00Z',
          created_at: at(2),
          status: 'revoked',
          used_at: null,
          scanner_id: null,
          scanner_name: null,
          allow_search: false,
        },
        {
          token_id: used.token_id,
          gate_id: 'north',
          expires_at: '2026-06-08T12:01:00Z',
          key_expires_at: '2026-06-03T18:00:00Z',
          created_at: at(1),
          status: 'used',
          used_at: at(4),
          scanner_id: scannerId,
          scanner_name: 'North phone 1',
          allow_search: false,
        },
        {
          token_id: expiring.token_id,
          gate_id: 'north',
          expires_at: at(30),
          key_expires_at: '2026-06-03T18:00:00Z',
          created_at: at(0),
          status: 'expired',
          used_at: null,
          scanner_id: null,
          scanner_name: null,
          allow_search: false,
        },
      ],
    });
  });

  it("lists only the event's own tokens; an event without any answers an empty list; an unknown event is 404", async () => {
    issuer().clock.set(T0);
    const event = (name: string) =>
      adminCall<{ eid: string }>(app(), 'POST', '/admin/v1/events', { name, event_date: '2026-06-02T18:00:00Z' });
    const [mine, other] = [await event('Mine'), await event('Other')];
    assert.deepEqual(await list(mine.eid), { enrollment_tokens: [] });
    const { token_id } = await create(other.eid);
    assert.deepEqual(await list(mine.eid), { enrollment_tokens: [] });
    assert.deepEqual(
      (await list(other.eid)).enrollment_tokens.map((t) => t.token_id),
      [token_id],
    );
    await adminCall(app(), 'GET', '/admin/v1/events/evt_01JZZZZZZZZZZZZZZZZZZZZZZZ/enrollment-tokens', undefined, 404);
  });
});
