import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { FixedClock } from '../../src/domain/clock.ts';
import { testIssuer, type TestIssuer } from '../helpers/app.ts';
import { Receiver, verify } from '../helpers/webhook-receiver.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const admin = { authorization: 'Bearer test-admin-token-0123456789abcdef' };

async function call(issuer: TestIssuer, method: string, url: string, payload?: object) {
  const res = await issuer.app.inject({
    method: method as 'GET',
    url,
    headers: admin,
    ...(payload ? { payload } : {}),
  });
  return { status: res.statusCode, body: res.body === '' ? null : (res.json() as Json) };
}

/** The endpoint's deliveries once `done` holds (polling, 10 s at most). */
async function deliveriesWhen(issuer: TestIssuer, webhookId: string, done: (d: Json[]) => boolean) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const list = (await call(issuer, 'GET', `/admin/v1/webhooks/${webhookId}/deliveries`)).body!.deliveries;
    if (done(list)) return list as Json[];
    if (Date.now() > deadline) throw new Error(`deliveries: ${JSON.stringify(list)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('webhooks: retries, 410, rotation and private networks', () => {
  let issuer: TestIssuer;
  let receiver: Receiver;
  before(async () => {
    issuer = await testIssuer({
      env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE_S: '5,60' },
      clock: new FixedClock(new Date()),
    });
    receiver = await Receiver.start();
  });
  after(async () => {
    await issuer?.close();
    await receiver?.close();
  });

  const create = async (path = '/a') => {
    const res = await call(issuer, 'POST', '/admin/v1/webhooks', { url: receiver.url + path, event_types: ['*'] });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body as { webhook_id: string; secret: string };
  };

  test('500 then 200: delivered on the retry, due after the schedule’s delay, with the same webhook-id', async () => {
    const w = await create('/flaky');
    let calls = 0;
    receiver.answer = (r) => (r.body.includes(w.webhook_id) && calls++ === 0 ? { status: 500 } : { status: 200 });
    const { body } = await call(issuer, 'POST', `/admin/v1/webhooks/${w.webhook_id}/test`);
    const failed = await deliveriesWhen(issuer, w.webhook_id, (d) => d[0]?.attempts.length === 1);
    assert.equal(failed[0]!.state, 'pending');
    assert.equal(failed[0]!.attempts[0].status_code, 500);
    const due = Date.parse(failed[0]!.next_attempt_at) - issuer.clock.now().getTime();
    assert.ok(due >= 4000 && due <= 6000, `retry due in ${due} ms (5 s ± 20 %)`);
    assert.equal((await call(issuer, 'GET', `/admin/v1/webhooks/${w.webhook_id}`)).body!.failing_since !== null, true);

    issuer.clock.advance(6000);
    const delivered = await deliveriesWhen(issuer, w.webhook_id, (d) => d[0]?.state === 'delivered');
    assert.deepEqual(
      delivered[0]!.attempts.map((a: { status_code: number }) => a.status_code),
      [500, 200],
    );
    const attempts = receiver.requests.filter((r) => r.id === body!.message_id);
    assert.equal(attempts.length, 2, 'two attempts, one webhook-id');
    for (const attempt of attempts) verify(w.secret, attempt);
    assert.equal((await call(issuer, 'GET', `/admin/v1/webhooks/${w.webhook_id}`)).body!.failing_since, null);
    receiver.answer = () => ({ status: 200 });
  });

  test('410 disables the endpoint at once; its pending messages fail; redelivery still works', async () => {
    const w = await create('/gone');
    receiver.answer = (r) => (r.body.includes(w.webhook_id) ? { status: 410 } : { status: 200 });
    await call(issuer, 'POST', `/admin/v1/webhooks/${w.webhook_id}/test`);
    const list = await deliveriesWhen(issuer, w.webhook_id, (d) => d[0]?.state === 'failed');
    const endpoint = (await call(issuer, 'GET', `/admin/v1/webhooks/${w.webhook_id}`)).body!;
    assert.deepEqual([endpoint.enabled, endpoint.disabled_reason], [false, 'gone']);
    receiver.answer = () => ({ status: 200 });
    const again = await call(
      issuer,
      'POST',
      `/admin/v1/webhooks/${w.webhook_id}/deliveries/${list[0]!.message_id}/redeliver`,
    );
    assert.equal(again.status, 202);
    const redelivered = await deliveriesWhen(issuer, w.webhook_id, (d) => d[0]?.state === 'delivered');
    assert.deepEqual(
      redelivered[0]!.attempts.map((a: { status_code: number }) => a.status_code),
      [410, 200],
    );
    const missing = await call(issuer, 'POST', `/admin/v1/webhooks/${w.webhook_id}/deliveries/msg_none/redeliver`);
    assert.equal(missing.status, 404);
    // Enabled again by the organizer.
    const enabled = await call(issuer, 'PATCH', `/admin/v1/webhooks/${w.webhook_id}`, { enabled: true });
    assert.deepEqual([enabled.body!.enabled, enabled.body!.disabled_reason], [true, null]);
  });

  test('a Retry-After of the receiver sets the next attempt', async () => {
    const w = await create('/busy');
    receiver.answer = (r) =>
      r.body.includes(w.webhook_id) ? { status: 503, headers: { 'retry-after': '42' } } : { status: 200 };
    await call(issuer, 'POST', `/admin/v1/webhooks/${w.webhook_id}/test`);
    const list = await deliveriesWhen(issuer, w.webhook_id, (d) => d[0]?.attempts.length === 1);
    const due = Date.parse(list[0]!.next_attempt_at) - issuer.clock.now().getTime();
    assert.ok(Math.abs(due - 42_000) < 1000, `due in ${due} ms`);
    receiver.answer = () => ({ status: 200 });
  });

  test('rotation: during the overlap each message carries both signatures, and either secret verifies it', async () => {
    const w = await create('/rotated');
    const rotated = await call(issuer, 'POST', `/admin/v1/webhooks/${w.webhook_id}/rotate-secret`);
    assert.equal(rotated.status, 200);
    const fresh = rotated.body!.secret as string;
    assert.notEqual(fresh, w.secret);
    const { body } = await call(issuer, 'POST', `/admin/v1/webhooks/${w.webhook_id}/test`);
    const [request] = await receiver.waitFor((r) => r.id === body!.message_id);
    assert.equal(request!.signature.split(' ').length, 2);
    verify(w.secret, request!);
    verify(fresh, request!);
    assert.throws(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(request!.body, {
        'webhook-id': request!.id,
        'webhook-timestamp': request!.timestamp,
        'webhook-signature': request!.signature,
      }),
    );
    // After 24 hours, only the new secret signs.
    issuer.clock.advance(24 * 3600_000 + 1000);
    const later = await call(issuer, 'POST', `/admin/v1/webhooks/${w.webhook_id}/test`);
    const [next] = await receiver.waitFor((r) => r.id === later.body!.message_id);
    const signedBy = (secret: string) =>
      new Webhook(secret).sign(next!.id, new Date(Number(next!.timestamp) * 1000), next!.body);
    assert.equal(next!.signature, signedBy(fresh), 'one signature, by the new secret');
    assert.notEqual(next!.signature, signedBy(w.secret));
  });
});

describe('webhooks: receivers on private networks are refused without WEBHOOK_ALLOW_PRIVATE', () => {
  let issuer: TestIssuer;
  before(async () => {
    issuer = await testIssuer();
  });
  after(async () => issuer?.close());

  test('loopback, private and link-local hosts are 400 naming url', async () => {
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'https://10.1.2.3/hook',
      'https://192.168.1.20/hook',
      'http://169.254.169.254/latest',
      'http://[::1]/hook',
      'http://[fd00::1]/hook',
    ]) {
      const res = await call(issuer, 'POST', '/admin/v1/webhooks', { url, event_types: ['*'] });
      assert.equal(res.status, 400, url);
      assert.equal(res.body!.error.details.fields[0].field, 'url', url);
    }
  });
});
