import assert from 'node:assert/strict';
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, afterEach, before, describe, it } from 'node:test';
import { ApnsClient } from '../../src/delivery/apns.ts';
import { FixedClock } from '../../src/domain/clock.ts';
import { APNS_KEY_ID, type AppleFiles, makeAppleFiles, PASS_TYPE_ID, TEAM_ID } from '../helpers/apple-certs.ts';
import { type LocalApns, startLocalApns } from '../helpers/apns-server.ts';

const PUSH_TOKEN = 'aa11bb22cc33dd44ee55ff6600778899aa11bb22cc33dd44ee55ff6600778899';
let files: AppleFiles;
let apns: LocalApns;
let client: ApnsClient | null = null;
const clock = new FixedClock(new Date());

const clientFor = (url = apns.url) => {
  client = new ApnsClient({
    url,
    key: createPrivateKey(readFileSync(files.apnsKey)),
    keyId: APNS_KEY_ID,
    teamId: TEAM_ID,
    clock,
    ca: apns.ca,
    timeoutMs: 2_000,
  });
  return client;
};

before(async () => {
  files = makeAppleFiles();
  apns = await startLocalApns(files.apnsPublicKey);
});
afterEach(() => {
  client?.close();
  client = null;
  apns.pushes.length = 0;
  apns.answer = () => ({ status: 200 });
});
after(async () => {
  await apns.close();
  files.remove();
});

describe('APNs pushes for Wallet passes (HTTP/2, token authentication)', () => {
  it('POSTs {} to /3/device/<pushToken> with the pass type as topic and an ES256 token of the team and key', async () => {
    const outcome = await clientFor().send(PUSH_TOKEN, PASS_TYPE_ID);
    assert.deepEqual(outcome, { kind: 'sent' });
    assert.equal(apns.pushes.length, 1);
    const push = apns.pushes[0]!;
    assert.equal(push.path, `/3/device/${PUSH_TOKEN}`);
    assert.equal(push.headers[':method'], 'POST');
    assert.equal(push.headers['apns-topic'], PASS_TYPE_ID);
    assert.equal(push.headers['apns-push-type'], 'background');
    assert.equal(push.headers['apns-priority'], '5');
    assert.equal(push.body, '{}');
    assert.ok(push.token !== null, 'the provider token verifies with the public key');
    assert.equal(push.token.iss, TEAM_ID);
    assert.equal(push.token.kid, APNS_KEY_ID);
    assert.equal(push.token.iat, Math.floor(clock.now().getTime() / 1000));
  });

  it('reuses its provider token for 50 minutes, then makes a new one', async () => {
    const c = clientFor();
    await c.send(PUSH_TOKEN, PASS_TYPE_ID);
    clock.advance(49 * 60_000);
    await c.send(PUSH_TOKEN, PASS_TYPE_ID);
    clock.advance(2 * 60_000);
    await c.send(PUSH_TOKEN, PASS_TYPE_ID);
    const tokens = apns.pushes.map((p) => p.token!.jwt);
    assert.equal(tokens[0], tokens[1]);
    assert.notEqual(tokens[1], tokens[2]);
    assert.equal(apns.pushes[2]!.token!.iat, Math.floor(clock.now().getTime() / 1000));
  });

  it('410 Unregistered ends the device; 429 and 5xx are tried again; 400 and 403 fail, with the reason', async () => {
    const c = clientFor();
    const cases: [number, string, string][] = [
      [410, 'Unregistered', 'unregistered'],
      [429, 'TooManyRequests', 'retry'],
      [500, 'InternalServerError', 'retry'],
      [503, 'ServiceUnavailable', 'retry'],
      [400, 'BadDeviceToken', 'failed'],
      [403, 'BadCertificateEnvironment', 'failed'],
    ];
    for (const [status, reason, kind] of cases) {
      apns.answer = () => ({ status, reason });
      assert.deepEqual(await c.send(PUSH_TOKEN, PASS_TYPE_ID), { kind, reason: `HTTP ${status} ${reason}` });
    }
  });

  it('an expired provider token is made again for the next attempt', async () => {
    const c = clientFor();
    await c.send(PUSH_TOKEN, PASS_TYPE_ID);
    apns.answer = () => ({ status: 403, reason: 'ExpiredProviderToken' });
    assert.equal((await c.send(PUSH_TOKEN, PASS_TYPE_ID)).kind, 'retry');
    apns.answer = () => ({ status: 200 });
    clock.advance(1000);
    await c.send(PUSH_TOKEN, PASS_TYPE_ID);
    assert.notEqual(apns.pushes[0]!.token!.jwt, apns.pushes[2]!.token!.jwt);
  });

  it('a push without an answer within the timeout is a retry', async () => {
    apns.answer = () => ({ status: 0 });
    const started = Date.now();
    const outcome = await clientFor().send(PUSH_TOKEN, PASS_TYPE_ID);
    assert.equal(outcome.kind, 'retry');
    assert.ok(Date.now() - started < 5_000);
  });

  it('a server that refuses connections, or one not trusted, is a retry, never a throw', async () => {
    const refused = await clientFor('https://127.0.0.1:9').send(PUSH_TOKEN, PASS_TYPE_ID);
    assert.equal(refused.kind, 'retry');
    client?.close();
    const untrusted = new ApnsClient({
      url: apns.url,
      key: createPrivateKey(readFileSync(files.apnsKey)),
      keyId: APNS_KEY_ID,
      teamId: TEAM_ID,
      timeoutMs: 2_000,
    });
    try {
      const outcome = await untrusted.send(PUSH_TOKEN, PASS_TYPE_ID);
      assert.equal(outcome.kind, 'retry');
      assert.equal(apns.pushes.length, 0);
    } finally {
      untrusted.close();
    }
  });
});
