import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { App } from '../../src/http/context.ts';
import { adminCall, checkInBody, postCheckIn, scenario, T0 } from '../helpers/app.ts';
import { makeAppleFiles, PASS_TYPE_ID } from '../helpers/apple-certs.ts';
import { passAuth } from '../helpers/apple-pass.ts';
import { startLocalApns } from '../helpers/apns-server.ts';
import { eachBackend } from '../helpers/backends.ts';
import { eventually as waitFor } from '../helpers/eventually.ts';

const files = makeAppleFiles();
const apns = await startLocalApns(files.apnsPublicKey);
after(async () => {
  await apns.close();
  files.remove();
});
/** Each test's devices answer as it says; others get 200. */
const answers = new Map<string, { status: number; reason?: string }[]>();
apns.answer = (push) => answers.get(push.path.slice('/3/device/'.length))?.shift() ?? { status: 200 };

const newPushToken = () => randomBytes(32).toString('hex');
const pushesTo = (token: string) => apns.pushes.filter((p) => p.path === `/3/device/${token}`);

async function registerDevice(
  app: App,
  tid: string,
  pushToken = newPushToken(),
): Promise<{ device: string; pushToken: string }> {
  const device = `device${randomBytes(6).toString('hex')}`;
  const res = await app.inject({
    method: 'POST',
    url: `/wallet/apple/v1/devices/${device}/registrations/${PASS_TYPE_ID}/${tid}`,
    headers: passAuth(tid),
    payload: { pushToken },
  });
  assert.equal(res.statusCode, 201, res.body);
  return { device, pushToken };
}

/** Waits (at most 10 s) until `done` holds. */
const eventually = (done: () => boolean | Promise<boolean>, what: string) => waitFor(what, done, 10_000, 50);

await eachBackend(
  'pass pushes when a ticket changes, through the durable outbox',
  ({ it, issuer }) => {
    it('a revoke pushes {} to every device registered for that pass, once each, and to no other', async () => {
      const { app } = issuer();
      const [a, b] = [await scenario(app), await scenario(app)];
      const [d1, d2] = [await registerDevice(app, a.tid), await registerDevice(app, a.tid)];
      const other = await registerDevice(app, b.tid);
      await adminCall(app, 'POST', `/admin/v1/tickets/${a.tid}/revoke`, { reason: 'refund' });
      await eventually(() => pushesTo(d1.pushToken).length === 1 && pushesTo(d2.pushToken).length === 1, 'both pushed');
      await sleep(300);
      for (const d of [d1, d2]) {
        const [push] = pushesTo(d.pushToken);
        assert.equal(pushesTo(d.pushToken).length, 1);
        assert.equal(push!.headers['apns-topic'], PASS_TYPE_ID);
        assert.equal(push!.body, '{}');
        assert.ok(push!.token !== null);
      }
      assert.equal(pushesTo(other.pushToken).length, 0);
      const states = await issuer().store.applePasses.listApplePushes(d1.pushToken);
      assert.deepEqual(
        states.map((s) => [s.state, s.attempts]),
        [['sent', 1]],
      );
    });

    it('a reissue and a change of notes each push again', async () => {
      const { app } = issuer();
      const s = await scenario(app);
      const d = await registerDevice(app, s.tid);
      await adminCall(app, 'POST', `/admin/v1/tickets/${s.tid}/reissue`, {}, 200);
      await eventually(() => pushesTo(d.pushToken).length === 1, 'reissue pushed');
      await adminCall(app, 'PATCH', `/admin/v1/tickets/${s.tid}`, { checkin_text: 'Side entrance' });
      await eventually(() => pushesTo(d.pushToken).length === 2, 'notes pushed');
      // A check-in changes nothing on the pass: no push.
      const entered = await scenario(app);
      const e = await registerDevice(app, entered.tid);
      const checkedIn = await postCheckIn(app, entered.apiKey, checkInBody(entered, T0));
      assert.equal(checkedIn.statusCode, 200, checkedIn.body);
      assert.equal(checkedIn.json().ticket.entries, 1, checkedIn.body);
      await sleep(300);
      assert.equal(pushesTo(d.pushToken).length, 2);
      assert.equal(pushesTo(e.pushToken).length, 0);
    });

    it('410 Unregistered deletes the registrations of that push token', async () => {
      const { app, store } = issuer();
      const s = await scenario(app);
      const d = await registerDevice(app, s.tid);
      answers.set(d.pushToken, [{ status: 410, reason: 'Unregistered' }]);
      await adminCall(app, 'POST', `/admin/v1/tickets/${s.tid}/revoke`, {});
      await eventually(
        async () => (await store.applePasses.listApplePushes(d.pushToken))[0]?.state === 'failed',
        'recorded',
      );
      const list = await app.inject({
        method: 'GET',
        url: `/wallet/apple/v1/devices/${d.device}/registrations/${PASS_TYPE_ID}`,
      });
      assert.equal(list.statusCode, 204);
      assert.equal((await store.applePasses.listApplePushes(d.pushToken))[0]!.last_error, 'HTTP 410 Unregistered');
    });

    it('429 and 5xx are tried again after the retry schedule; 400 is recorded as failed with the reason', async () => {
      const { app, store } = issuer();
      const s = await scenario(app);
      const retried = await registerDevice(app, s.tid);
      const refused = await registerDevice(app, s.tid);
      answers.set(retried.pushToken, [
        { status: 503, reason: 'ServiceUnavailable' },
        { status: 429, reason: 'TooManyRequests' },
      ]);
      answers.set(refused.pushToken, [{ status: 400, reason: 'BadDeviceToken' }]);
      await adminCall(app, 'PATCH', `/admin/v1/tickets/${s.tid}`, { attention: true });
      await eventually(
        async () => (await store.applePasses.listApplePushes(retried.pushToken))[0]?.state === 'sent',
        'sent at last',
      );
      assert.equal(pushesTo(retried.pushToken).length, 3);
      const [ended] = await store.applePasses.listApplePushes(retried.pushToken);
      assert.equal(ended!.attempts, 3);
      const [failed] = await store.applePasses.listApplePushes(refused.pushToken);
      assert.deepEqual([failed!.state, failed!.attempts, failed!.last_error], ['failed', 1, 'HTTP 400 BadDeviceToken']);
      assert.equal(pushesTo(refused.pushToken).length, 1);
    });
  },
  {
    env: { ...files.env, APNS_URL: apns.url, APNS_RETRY_SCHEDULE_S: '1,1' },
    deps: () => ({ applePushes: { apnsCa: apns.ca, pollMs: 50 } }),
  },
);
