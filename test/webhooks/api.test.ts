import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { FixedClock } from '../../src/domain/clock.ts';
import { checkInBody, enrollScanner, postCheckIn, type Scenario, testIssuer, type TestIssuer } from '../helpers/app.ts';
import { Receiver, verify } from '../helpers/webhook-receiver.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const admin = { authorization: 'Bearer test-admin-token-0123456789abcdef' };

async function call(issuer: TestIssuer, method: string, url: string, payload?: object) {
  const res = await issuer.app.inject({
    method: method as 'GET',
    url,
    headers: admin,
    ...(payload === undefined ? {} : { payload }),
  });
  return { status: res.statusCode, body: res.body === '' ? null : (res.json() as Json) };
}

/** An event of tomorrow (by the issuer's clock), one ticket, and an enrolled scanner. */
async function eventNow(issuer: TestIssuer): Promise<Scenario> {
  const tomorrow = new Date(issuer.clock.now().getTime() + 86_400_000).toISOString();
  const { body: event } = await call(issuer, 'POST', '/admin/v1/events', {
    name: 'Harbour Lights',
    event_date: tomorrow,
  });
  const { body: ticket } = await call(issuer, 'POST', `/admin/v1/events/${event!.eid}/tickets`, {
    holder_name: 'Ada Lovelace',
    ticket_type: 'GA',
  });
  const scannerId = randomUUID();
  const enrolled = await enrollScanner(issuer.app, event!.eid, scannerId);
  return { eid: event!.eid, tid: ticket!.tid, ticketToken: ticket!.ticket_token, scannerId, ...enrolled };
}

describe('webhooks: endpoints through the admin API (SQLite)', () => {
  let issuer: TestIssuer;
  let receiver: Receiver;
  before(async () => {
    // Near the real time: receivers check `webhook-timestamp` against their own clock.
    issuer = await testIssuer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' }, clock: new FixedClock(new Date()) });
    receiver = await Receiver.start();
  });
  after(async () => {
    await issuer?.close();
    await receiver?.close();
  });

  test('create shows the secret once; read and list never do', async () => {
    const created = await call(issuer, 'POST', '/admin/v1/webhooks', {
      url: receiver.url,
      event_types: ['ticket.checked_in', 'ticket.checked_in'],
      description: 'door count display',
    });
    assert.equal(created.status, 201);
    const body = created.body!;
    assert.match(body.webhook_id, /^whk_[0-9A-Z]{26}$/);
    assert.match(body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(body.secret.slice(6), 'base64').length, 32);
    assert.deepEqual(
      [body.url, body.event_types, body.eid, body.description, body.enabled, body.failing_since],
      [receiver.url, ['ticket.checked_in'], null, 'door count display', true, null],
    );
    const read = await call(issuer, 'GET', `/admin/v1/webhooks/${body.webhook_id}`);
    assert.equal(read.status, 200);
    assert.equal('secret' in read.body!, false);
    const list = await call(issuer, 'GET', '/admin/v1/webhooks?limit=1000');
    assert.ok(list.body!.webhooks.some((w: { webhook_id: string }) => w.webhook_id === body.webhook_id));
    assert.equal(JSON.stringify(list.body).includes('whsec_'), false);
    assert.equal(issuer.logs.text.includes(body.secret.slice(6, 30)), false, 'never logged');
    const stored = (await issuer.store.webhooks.getWebhook(body.webhook_id))!;
    assert.equal(JSON.stringify(stored).includes(body.secret.slice(6)), false, 'kept encrypted');
  });

  test('bad input is 400 naming the field', async () => {
    const cases: [object, string][] = [
      [{ url: 'ftp://files.example/hook', event_types: ['*'] }, 'url'],
      [{ url: 'https://user:pw@hooks.example/hook', event_types: ['*'] }, 'url'],
      [{ url: `https://hooks.example/${'a'.repeat(3000)}`, event_types: ['*'] }, 'url'],
      [{ url: 'https://hooks.example/hook', event_types: ['ticket.teleported'] }, 'event_types'],
      [{ url: 'https://hooks.example/hook', event_types: [] }, 'event_types'],
      [{ url: 'https://hooks.example/hook', event_types: ['*'], eid: 'evt_none' }, 'eid'],
      [{ url: 'https://hooks.example/hook', event_types: ['*'], colour: 'red' }, 'colour'],
    ];
    for (const [payload, field] of cases) {
      const res = await call(issuer, 'POST', '/admin/v1/webhooks', payload);
      assert.equal(res.status, 400, JSON.stringify(payload).slice(0, 80));
      assert.equal(res.body!.error.code, 'INVALID_REQUEST');
      const fields = (res.body!.error.details.fields as { field: string }[]).map((f) => f.field);
      assert.ok(
        fields.some((f) => f === field || f.startsWith(`${field}/`) || f.startsWith(`${field}[`)),
        `${field} in ${fields}`,
      );
    }
    assert.equal((await call(issuer, 'GET', '/admin/v1/webhooks/whk_none')).status, 404);
    assert.equal((await call(issuer, 'DELETE', '/admin/v1/webhooks/whk_none')).status, 404);
  });

  test('a test message reaches the receiver, signed; its attempt is listed', async () => {
    const { body: w } = await call(issuer, 'POST', '/admin/v1/webhooks', {
      url: receiver.url,
      event_types: ['ticket.revoked'],
    });
    const queued = await call(issuer, 'POST', `/admin/v1/webhooks/${w!.webhook_id}/test`);
    assert.equal(queued.status, 202);
    assert.match(queued.body!.message_id, /^msg_/);
    const [request] = await receiver.waitFor((r) => r.id === queued.body!.message_id);
    const payload = verify(w!.secret, request!);
    assert.deepEqual([payload.type, payload.data], ['webhook.test', { webhook_id: w!.webhook_id }]);
    assert.equal(request!.headers['content-type'], 'application/json');
    let deliveries: Json[] = [];
    for (let i = 0; i < 100; i++) {
      deliveries = (await call(issuer, 'GET', `/admin/v1/webhooks/${w!.webhook_id}/deliveries`)).body!.deliveries;
      if (deliveries[0]?.state === 'delivered') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(deliveries.length, 1);
    assert.equal(deliveries[0]!.message_id, queued.body!.message_id);
    assert.equal(deliveries[0]!.state, 'delivered');
    assert.equal(deliveries[0]!.attempts.length, 1);
    assert.equal(deliveries[0]!.attempts[0].status_code, 200);
    assert.equal(deliveries[0]!.attempts[0].error, null);
  });

  test('every type reaches the receiver with the right data', async () => {
    const s = await eventNow(issuer);
    const { body: w } = await call(issuer, 'POST', '/admin/v1/webhooks', {
      url: receiver.url,
      event_types: ['*'],
      eid: s.eid,
    });
    const secret = w!.secret as string;
    const now = () => issuer.clock.now().toISOString();
    // Check-in, then check-out.
    const entry = await postCheckIn(issuer.app, s.apiKey, checkInBody(s, now(), { gate_id: 'north' }));
    assert.equal(entry.json().status, 'valid');
    const checkedIn = (await receiver.message(secret, 'ticket.checked_in')).payload;
    assert.deepEqual(checkedIn.data, {
      eid: s.eid,
      tid: s.tid,
      holder_name: 'Ada Lovelace',
      ticket_type: 'GA',
      checked_in_at: entry.json().ticket.checked_in_at,
      scanner_id: s.scannerId,
      gate_id: 'north',
      admitted_offline: false,
      position: 1,
    });
    const exit = await issuer.app.inject({
      method: 'POST',
      url: '/api/v1/tickets/check-out',
      headers: { authorization: `Bearer ${s.apiKey}` },
      payload: checkInBody(s, now(), { gate_id: 'north' }),
    });
    assert.equal(exit.json().status, 'checked_out');
    const out = (await receiver.message(secret, 'ticket.checked_out')).payload.data;
    assert.deepEqual(Object.keys(out), ['eid', 'tid', 'checked_out_at', 'scanner_id', 'gate_id', 'position']);
    assert.equal(out.position, 2);

    // A second scanner let the holder in offline: a conflict.
    const otherId = randomUUID();
    const other = await enrollScanner(issuer.app, s.eid, otherId);
    const duplicate = await postCheckIn(issuer.app, other.apiKey, {
      ...checkInBody(s, now()),
      scanner_id: otherId,
      admitted_offline: true,
    });
    assert.equal(duplicate.json().status, 'already_used');
    const conflict = (await receiver.message(secret, 'checkin.conflict')).payload.data as Json;
    assert.equal(conflict.tid, s.tid);
    assert.equal(conflict.first.scanner_id, s.scannerId);
    assert.equal(conflict.duplicate.admitted_offline, true);
    const enrolled = (await receiver.message(secret, 'scanner.enrolled')).payload.data;
    assert.equal(enrolled.api_key_id, other.apiKeyId);

    // Reissue, then revocation of the ticket and of the second scanner's key.
    const { body: fresh } = await call(issuer, 'POST', `/admin/v1/events/${s.eid}/tickets`, {
      holder_name: 'Grace Hopper',
      ticket_type: 'VIP',
    });
    const reissued = await call(issuer, 'POST', `/admin/v1/tickets/${fresh!.tid}/reissue`, {});
    assert.equal(reissued.status, 200, JSON.stringify(reissued.body));
    const reissue = (await receiver.message(secret, 'ticket.reissued')).payload.data;
    assert.equal(reissue.tid, fresh!.tid);
    assert.equal(typeof reissue.jti, 'string');
    assert.notEqual(reissue.jti, reissue.superseded_jti);
    await call(issuer, 'POST', `/admin/v1/tickets/${s.tid}/revoke`, { reason: 'refund' });
    const revoked = (await receiver.message(secret, 'ticket.revoked')).payload.data;
    assert.deepEqual([revoked.tid, revoked.reason], [s.tid, 'refund']);
    await call(issuer, 'POST', `/admin/v1/api-keys/${other.apiKeyId}/revoke`, {});
    const keyRevoked = (await receiver.message(secret, 'scanner.revoked')).payload.data;
    assert.deepEqual(keyRevoked, { eid: s.eid, api_key_id: other.apiKeyId });
  });
  test('PATCH changes what an endpoint receives at once; DELETE removes it with its messages', async () => {
    const s = await eventNow(issuer);
    const { body: w } = await call(issuer, 'POST', '/admin/v1/webhooks', {
      url: receiver.url,
      event_types: ['ticket.checked_in'],
      eid: s.eid,
    });
    const bad = await call(issuer, 'PATCH', `/admin/v1/webhooks/${w!.webhook_id}`, { url: 'ftp://files.example/x' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body!.error.details.fields[0].field, 'url');
    const changed = await call(issuer, 'PATCH', `/admin/v1/webhooks/${w!.webhook_id}`, {
      event_types: ['ticket.revoked'],
      description: 'revocations only',
    });
    assert.deepEqual([changed.body!.event_types, changed.body!.description], [['ticket.revoked'], 'revocations only']);
    const now = issuer.clock.now().toISOString();
    assert.equal((await postCheckIn(issuer.app, s.apiKey, checkInBody(s, now))).json().status, 'valid');
    await call(issuer, 'POST', `/admin/v1/tickets/${s.tid}/revoke`, { reason: 'changed plans' });
    const deliveries = (await call(issuer, 'GET', `/admin/v1/webhooks/${w!.webhook_id}/deliveries`)).body!.deliveries;
    assert.deepEqual(
      deliveries.map((d: { type: string }) => d.type),
      ['ticket.revoked'],
      'the check-in after the change is not sent',
    );
    assert.equal((await call(issuer, 'DELETE', `/admin/v1/webhooks/${w!.webhook_id}`)).status, 204);
    assert.equal((await call(issuer, 'GET', `/admin/v1/webhooks/${w!.webhook_id}`)).status, 404);
    assert.equal((await call(issuer, 'GET', `/admin/v1/webhooks/${w!.webhook_id}/deliveries`)).status, 404);
  });

  test('the metrics count attempts by result and show the messages pending', async () => {
    const metrics = await issuer.app.inject({ method: 'GET', url: '/metrics', headers: admin });
    assert.equal(metrics.statusCode, 200);
    const delivered = /^issuer_webhook_attempts_total\{result="delivered"\} (\d+)$/m.exec(metrics.body);
    assert.ok(delivered && Number(delivered[1]) >= 1, 'the deliveries above are counted');
    assert.match(metrics.body, /^issuer_webhook_attempts_total\{result="failed"\} \d+$/m);
    assert.match(metrics.body, /^issuer_webhook_pending \d+$/m);
  });
});
