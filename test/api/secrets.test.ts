import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { unseal } from '../../src/domain/key-encryption.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import {
  ADMIN_TOKEN,
  adminCall,
  checkInBody,
  postCheckIn,
  scenario,
  type Scenario,
  testIssuer,
  type TestIssuer,
} from '../helpers/app.ts';
import { asCookie, signIn } from '../helpers/console-session.ts';

/** The ways a secret could be written down: as text, hex or base64 of its bytes. */
function spellings(secret: string | Buffer): string[] {
  const bytes = typeof secret === 'string' ? Buffer.from(secret) : secret;
  return [
    bytes.toString('latin1'),
    bytes.toString('hex'),
    bytes.toString('base64'),
    bytes.toString('base64url'),
  ].filter((x) => x.length >= 16);
}

describe('secrets never appear in logs, answers or the database file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'issuer-secrets-'));
  const dbPath = join(dir, 'issuer.db');
  let t: TestIssuer;
  let s: Scenario;
  let enrollmentToken: string;
  const answers: string[] = [];

  before(async () => {
    t = await testIssuer({ store: new SqliteStore(dbPath), env: { LOG_LEVEL: 'trace' } });
    s = await scenario(t.app);
    const created = await adminCall<{ token: string }>(
      t.app,
      'POST',
      `/admin/v1/events/${s.eid}/enrollment-tokens`,
      {},
    );
    enrollmentToken = created.token;
    // Every route that takes a secret, with right and wrong ones, so each path has a chance to leak.
    const calls = [
      t.app.inject({
        method: 'POST',
        url: '/api/v1/scanners/enroll',
        payload: { token: enrollmentToken, scanner_id: 'x' },
      }),
      t.app.inject({
        method: 'POST',
        url: '/api/v1/scanners/enroll',
        payload: { token: enrollmentToken, scanner_id: 'x' },
      }),
      t.app.inject({
        method: 'POST',
        url: '/api/v1/scanners/enroll',
        payload: { token: enrollmentToken.slice(0, -2) },
      }),
      postCheckIn(t.app, s.apiKey, checkInBody(s, '2026-06-01T12:00:00Z')),
      postCheckIn(t.app, `${s.apiKey}x`, checkInBody(s, '2026-06-01T12:00:00Z')),
      postCheckIn(t.app, s.apiKey, { ...checkInBody(s, 'bad'), token: enrollmentToken }),
      t.app.inject({ url: `/api/v1/tickets/${s.tid}/status`, headers: { authorization: `Bearer ${s.apiKey}` } }),
      t.app.inject({ url: '/admin/v1/events', headers: { authorization: `Bearer ${ADMIN_TOKEN}x` } }),
      t.app.inject({ url: '/admin/v1/signing-keys', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
      t.app.inject({
        method: 'POST',
        url: '/admin/v1/signing-keys/rotate',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      }),
      t.app.inject({ url: '/.well-known/ticket-issuer.json' }),
      t.app.inject({ url: '/openapi.json' }),
    ];
    for (const res of await Promise.all(calls)) answers.push(res.body);
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const dbFiles = () =>
    [dbPath, `${dbPath}-wal`, `${dbPath}-shm`].filter(existsSync).map((f) => readFileSync(f).toString('latin1'));

  it('no API key, enrolment token or admin token in the log output at debug level or below', () => {
    assert.ok(t.logs.lines.length > 20, 'the app did log');
    for (const secret of [s.apiKey, enrollmentToken, ADMIN_TOKEN]) {
      for (const spelling of spellings(secret))
        assert.equal(t.logs.text.includes(spelling), false, spelling.slice(0, 12));
    }
    assert.ok(t.logs.text.includes(s.apiKeyId), 'logs carry the api_key_id instead');
  });

  it('no API key, enrolment token or admin token in plain text in the database file', () => {
    const files = dbFiles();
    assert.ok(files.length > 0);
    for (const content of files) {
      for (const secret of [s.apiKey, enrollmentToken, ADMIN_TOKEN]) {
        for (const spelling of spellings(secret)) assert.equal(content.includes(spelling), false);
      }
    }
  });

  it('no private signing key material in logs, answers or the database file', async () => {
    const keys = await t.store.signingKeys.listSigningKeys();
    assert.equal(keys.length, 2);
    for (const key of keys) {
      const pkcs8 = unseal(Buffer.alloc(32, 7), key.private_key_enc, key.kid);
      const seed = pkcs8.subarray(pkcs8.length - 32);
      for (const spelling of [...spellings(pkcs8), ...spellings(seed)]) {
        assert.equal(t.logs.text.includes(spelling), false, 'logs');
        for (const answer of answers) assert.equal(answer.includes(spelling), false, 'answers');
        for (const content of dbFiles()) assert.equal(content.includes(spelling), false, 'database');
      }
      assert.equal(key.private_key_enc.includes(seed.toString('base64url')), false);
    }
    for (const answer of answers) assert.equal(/"d"\s*:/.test(answer), false, 'no JWK private member "d"');
  });
});

describe('console session ids and the metrics token are masked in logs like the other secrets', () => {
  const METRICS_TOKEN = 'metrics-token-of-this-test-0123456789';
  let t: TestIssuer;
  let sessionId: string;

  before(async () => {
    t = await testIssuer({ env: { LOG_LEVEL: 'trace', METRICS_TOKEN } });
    const session = await signIn(t);
    sessionId = session.value;
    // Each secret travels where no redaction path reaches: the URL (logged with every request), raw and encoded.
    for (const secret of [sessionId, METRICS_TOKEN]) {
      await t.app.inject({ url: `/admin/v1/events?leaked=${secret}`, headers: { cookie: session.cookie } });
      await t.app.inject({ url: `/no/such/route/${encodeURIComponent(secret)}` });
      await t.app.inject({ url: `/metrics?token=${encodeURIComponent(secret)}` });
    }
    await asCookie(t, 'GET', '/admin/v1/events', session.cookie);
    await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  });
  after(() => t.close());

  it('no console session id (as_…, the cookie value) in the log output, in any spelling', () => {
    assert.match(sessionId, /^as_/);
    assert.ok(t.logs.text.includes('leaked=[redacted]'), 'the line carrying it was written, masked');
    for (const spelling of [...spellings(sessionId), encodeURIComponent(sessionId)])
      assert.equal(t.logs.text.includes(spelling), false, spelling.slice(0, 8));
  });

  it('no METRICS_TOKEN in the log output, in any spelling', () => {
    for (const spelling of spellings(METRICS_TOKEN))
      assert.equal(t.logs.text.includes(spelling), false, spelling.slice(0, 8));
    assert.equal(t.logs.text.includes('metrics-token-of'), false);
  });
});
