import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import type { GoogleWalletSettings } from '../../src/config-google.ts';
import { GoogleWalletApi, reissuedPatch, revokedPatch } from '../../src/delivery/google-wallet-api.ts';
import { CLIENT_EMAIL, ISSUER_ID, makeKeyFile, type TestKeyFile } from '../helpers/google-key.ts';
import { GoogleStandIn, testCertificate } from '../helpers/google-services.ts';

const TID = '01JZ8Y7W6V5T4S3R2Q1P0N9M8K';
const OBJECT_ID = `${ISSUER_ID}.${TID}`;
let key: TestKeyFile;
let google: GoogleStandIn;
let settings: GoogleWalletSettings;
let ca: string;

before(async () => {
  const certDir = mkdtempSync(join(tmpdir(), 'issuer-google-tls-'));
  after(() => rmSync(certDir, { recursive: true, force: true }));
  const tls = testCertificate(certDir);
  ca = tls.cert;
  google = new GoogleStandIn({ clientEmail: CLIENT_EMAIL, tls });
  await google.start();
  // The key file the issuer reads names the stand-in's token endpoint; the stand-in checks its key.
  key = makeKeyFile(google.tokenUri);
  google.publicKey = key.publicKey;
  settings = loadConfig({ ...key.env, GOOGLE_WALLET_API_URL: google.apiUrl }).googleWallet!;
});
after(async () => {
  await google.stop();
  key.remove();
});
beforeEach(() => {
  google.objects.clear();
  google.objects.set(OBJECT_ID, { id: OBJECT_ID, state: 'ACTIVE', barcode: { type: 'QR_CODE', value: 'old' } });
  google.patches.length = 0;
  google.scripted.length = 0;
  google.tokenRefusals.length = 0;
  google.tokenRequests = 0;
  google.tokenLifetimeS = 3600;
});

const api = (now?: () => number) => new GoogleWalletApi(settings, { timeoutMs: 5_000, ca, ...(now ? { now } : {}) });

describe('Google Wallet REST API: patches of a saved ticket', () => {
  it("a revoke patches the object to INACTIVE with a token from the key file's token_uri", async () => {
    const outcome = await api().patchObject(TID, revokedPatch());
    assert.deepEqual(outcome, { kind: 'done', saved: true, status: 200 });
    assert.deepEqual(google.tokenRefusals, []);
    assert.equal(google.tokenRequests, 1);
    assert.deepEqual(
      google.patches.map((p) => [p.objectId, p.body]),
      [[OBJECT_ID, { state: 'INACTIVE' }]],
    );
    assert.equal(google.objects.get(OBJECT_ID)!.state, 'INACTIVE');
  });

  it('a reissue replaces the barcode with the new token', async () => {
    const outcome = await api().patchObject(TID, reissuedPatch('new-ticket-token'));
    assert.equal(outcome.kind, 'done');
    assert.deepEqual(google.patches[0]!.body, { barcode: { type: 'QR_CODE', value: 'new-ticket-token' } });
    assert.deepEqual(google.objects.get(OBJECT_ID)!.barcode, { type: 'QR_CODE', value: 'new-ticket-token' });
  });

  it('the token is reused until it nears its expiry, then a new one is asked for', async () => {
    google.tokenLifetimeS = 300;
    let offset = 0;
    const client = api(() => Date.now() + offset);
    await client.patchObject(TID, revokedPatch());
    await client.patchObject(TID, revokedPatch());
    await Promise.all([client.patchObject(TID, revokedPatch()), client.patchObject(TID, revokedPatch())]);
    assert.equal(google.tokenRequests, 1);
    offset = 250_000; // 50 s before the token's expiry: inside the margin
    await Promise.all([client.patchObject(TID, revokedPatch()), client.patchObject(TID, revokedPatch())]);
    assert.equal(google.tokenRequests, 2, 'one new token for the two concurrent patches');
    assert.equal(new Set(google.patches.map((p) => p.token)).size, 2);
    assert.deepEqual(google.tokenRefusals, []);
  });

  it('404 (the holder never saved the pass) is done: nothing to patch', async () => {
    google.objects.clear();
    assert.deepEqual(await api().patchObject(TID, revokedPatch()), { kind: 'done', saved: false, status: 404 });
  });

  it('401: the token is renewed once and the patch sent again; a second 401 is retried later, not failed', async () => {
    const client = api();
    await client.patchObject(TID, revokedPatch());
    google.validTokens.clear(); // Google no longer accepts the kept token
    assert.deepEqual(await client.patchObject(TID, reissuedPatch('t2')), { kind: 'done', saved: true, status: 200 });
    assert.equal(google.tokenRequests, 2);
    google.scripted.push({ status: 401 }, { status: 401 }, { status: 401 });
    const again = await client.patchObject(TID, revokedPatch());
    assert.equal(again.kind, 'retry');
    assert.equal(google.tokenRequests, 3, 'renewed once, not in a loop');
    assert.equal(google.scripted.length, 1, 'the patch was sent twice');
  });

  it('429 and 5xx are retried later (Retry-After kept); another 4xx is a failure with the reply', async () => {
    google.scripted.push({ status: 429, headers: { 'retry-after': '120' } }, { status: 503 });
    google.scripted.push({ status: 400, body: '{"error":{"code":400,"message":"Invalid barcode"}}' });
    const client = api();
    assert.deepEqual(await client.patchObject(TID, revokedPatch()), {
      kind: 'retry',
      status: 429,
      error: '429 {}',
      retryAfterS: 120,
    });
    const unavailable = await client.patchObject(TID, revokedPatch());
    assert.equal(unavailable.kind, 'retry');
    assert.equal(unavailable.status, 503);
    const refused = await client.patchObject(TID, reissuedPatch('x'));
    assert.equal(refused.kind, 'failed');
    assert.equal(refused.status, 400);
    assert.match(refused.error, /Invalid barcode/);
  });

  it('no answer (connection refused, an untrusted certificate) or no token is retried later, the key never in the error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = await new GoogleWalletApi(
      { ...settings, apiUrl: `https://127.0.0.1:${port}/v1` },
      { timeoutMs: 2_000, ca },
    ).patchObject(TID, revokedPatch());
    assert.equal(refused.kind, 'retry');
    assert.equal(refused.status, null);
    assert.match(refused.error, /ECONNREFUSED/);

    const untrusted = await new GoogleWalletApi(settings, { timeoutMs: 2_000 }).patchObject(TID, revokedPatch());
    assert.equal(untrusted.kind, 'retry');
    assert.equal(google.patches.length, 0);

    const stranger = makeKeyFile(google.tokenUri);
    after(() => stranger.remove());
    const foreign = { ...settings, privateKey: stranger.privateKeyPem };
    const noToken = await new GoogleWalletApi(foreign, { timeoutMs: 2_000, ca }).patchObject(TID, revokedPatch());
    assert.deepEqual(noToken, {
      kind: 'retry',
      status: 400,
      error: 'token endpoint answered 400: invalid_grant',
      retryAfterS: null,
    });
    assert.match(google.tokenRefusals[0]!, /signature verification failed/);
    assert.equal(JSON.stringify(noToken).includes('PRIVATE'), false);
  });
});
