import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { ADMIN_TOKEN, testIssuer, type TestIssuer } from '../helpers/app.ts';
import { asCookie, newEvent, SESSION, signIn } from '../helpers/console-session.ts';

describe('console sessions: sign-in', () => {
  it('the admin token is exchanged for an HttpOnly, SameSite=Strict cookie on /admin/v1, Secure under an https BASE_URL', async () => {
    const issuer = await testIssuer();
    try {
      const { setCookie, csrf } = await signIn(issuer);
      assert.match(setCookie, /HttpOnly/);
      assert.match(setCookie, /SameSite=Strict/);
      assert.match(setCookie, /Secure/);
      assert.match(setCookie, /Path=\/admin\/v1/);
      assert.match(csrf, /^[A-Za-z0-9_-]{43}$/);
      assert.ok(!setCookie.includes(ADMIN_TOKEN));
    } finally {
      await issuer.close();
    }
  });

  it('an http BASE_URL reached over http gives a cookie without Secure', async () => {
    const issuer = await testIssuer({ env: { BASE_URL: 'http://127.0.0.1:8080' } });
    try {
      assert.doesNotMatch((await signIn(issuer)).setCookie, /Secure/);
    } finally {
      await issuer.close();
    }
  });

  it('a wrong admin token is 401 in the envelope and sets no cookie', async () => {
    const issuer = await testIssuer();
    try {
      const res = await issuer.app.inject({
        method: 'POST',
        url: '/admin/v1/session',
        payload: { admin_token: 'wrong-token-0123456789abcdef' },
      });
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().error.code, 'UNAUTHORIZED');
      assert.equal(res.headers['set-cookie'], undefined);
    } finally {
      await issuer.close();
    }
  });

  it('only a hash of the session id is stored', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'issuer-session-'));
    const store = new SqliteStore(join(dir, 'issuer.db'));
    const issuer = await testIssuer({ store });
    try {
      const { value } = await signIn(issuer);
      await issuer.close();
      const files = ['issuer.db', 'issuer.db-wal'].map((f) => {
        try {
          return readFileSync(join(dir, f)).toString('latin1');
        } catch {
          return '';
        }
      });
      assert.ok(!files.some((content) => content.includes(value)));
    } finally {
      await issuer.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('console sessions: the admin API with the cookie', () => {
  let issuer: TestIssuer;
  after(async () => issuer?.close());

  it('reads need only the cookie', async () => {
    issuer = await testIssuer();
    const { cookie } = await signIn(issuer);
    const res = await asCookie(issuer, 'GET', '/admin/v1/events', cookie);
    assert.equal(res.statusCode, 200, res.body);
  });

  it('a cookie-authenticated write without the CSRF token, or with a wrong one, is 403 FORBIDDEN and changes nothing', async () => {
    const { cookie, csrf } = await signIn(issuer);
    const attempts: Record<string, string>[] = [
      {},
      { 'x-csrf-token': 'not-the-token' },
      { 'x-csrf-token': `${csrf}x` },
    ];
    for (const headers of attempts) {
      const res = await asCookie(issuer, 'POST', '/admin/v1/events', cookie, headers, newEvent);
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(res.json().error.code, 'FORBIDDEN');
    }
    const list = await asCookie(issuer, 'GET', '/admin/v1/events', cookie);
    assert.deepEqual(list.json().events, []);
  });

  it('a cookie-authenticated write with the session’s CSRF token succeeds', async () => {
    const { cookie, csrf } = await signIn(issuer);
    const res = await asCookie(issuer, 'POST', '/admin/v1/events', cookie, { 'x-csrf-token': csrf }, newEvent);
    assert.equal(res.statusCode, 201, res.body);
  });

  it('the CSRF token of one session does not work with another session', async () => {
    const first = await signIn(issuer);
    const second = await signIn(issuer);
    const res = await asCookie(
      issuer,
      'POST',
      '/admin/v1/events',
      second.cookie,
      { 'x-csrf-token': first.csrf },
      newEvent,
    );
    assert.equal(res.statusCode, 403);
  });

  it('bearer calls are unchanged: no CSRF token needed, even beside a cookie', async () => {
    const { cookie } = await signIn(issuer);
    const res = await asCookie(
      issuer,
      'POST',
      '/admin/v1/events',
      cookie,
      { authorization: `Bearer ${ADMIN_TOKEN}` },
      newEvent,
    );
    assert.equal(res.statusCode, 201, res.body);
    const wrong = await asCookie(issuer, 'GET', '/admin/v1/events', cookie, {
      authorization: 'Bearer wrong-token-0123456789',
    });
    assert.equal(wrong.statusCode, 401, 'a bearer token present is judged alone');
  });

  it('GET /admin/v1/session gives the session’s CSRF token again (after a reload)', async () => {
    const { cookie, csrf } = await signIn(issuer);
    const res = await asCookie(issuer, 'GET', '/admin/v1/session', cookie);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().csrf_token, csrf);
    assert.equal((await issuer.app.inject({ method: 'GET', url: '/admin/v1/session' })).statusCode, 401);
  });

  it('an unknown or malformed cookie is 401', async () => {
    for (const value of ['as_' + 'A'.repeat(43), 'garbage', '']) {
      const res = await asCookie(issuer, 'GET', '/admin/v1/events', `${SESSION}=${value}`);
      assert.equal(res.statusCode, 401, value);
      assert.equal(res.json().error.code, 'UNAUTHORIZED');
    }
  });

  it('sign-out needs the CSRF token, ends the session on the server and clears the cookie', async () => {
    const { cookie, csrf } = await signIn(issuer);
    assert.equal((await asCookie(issuer, 'DELETE', '/admin/v1/session', cookie)).statusCode, 403);
    const out = await asCookie(issuer, 'DELETE', '/admin/v1/session', cookie, { 'x-csrf-token': csrf });
    assert.equal(out.statusCode, 204);
    assert.match(String(out.headers['set-cookie']), new RegExp(`${SESSION}=;.*Expires=Thu, 01 Jan 1970`));
    assert.equal((await asCookie(issuer, 'GET', '/admin/v1/events', cookie)).statusCode, 401);
    assert.equal((await asCookie(issuer, 'GET', '/admin/v1/session', cookie)).statusCode, 401);
  });
});
