import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer } from '../helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'issuer-tls-'));
const certFile = join(dir, 'cert.pem');
const keyFile = join(dir, 'key.pem');
const env = (extra: Record<string, string>) => ({
  DATABASE_URL: `sqlite:${join(dir, 'issuer.db')}`,
  ADMIN_TOKEN: 'a'.repeat(32),
  ...extra,
});

/** A self-signed certificate for 127.0.0.1 and localhost, as a local CA would make one for a venue. */
function makeCertificate(cert: string, key: string): void {
  const made = spawnSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout',
    key,
    '-out',
    cert,
  ]);
  assert.equal(made.status, 0, made.stderr?.toString());
}

/** A request over HTTPS trusting only `ca`; a body is sent as JSON. */
function requestTls(
  url: string,
  ca: Buffer,
  body?: object,
): Promise<{ status: number; body: string; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const options = body
      ? { ca, method: 'POST', headers: { 'content-type': 'application/json' } }
      : { ca, method: 'GET' };
    const req = httpsRequest(url, options, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

/** The one stderr line of a start that must fail, and its exit code. */
function failedStart(extra: Record<string, string>) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', ...env(extra) },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stderr: result.stderr.trim() };
}

describe('HTTPS served by the issuer (TLS_CERT_FILE, TLS_KEY_FILE)', () => {
  before(() => makeCertificate(certFile, keyFile));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('serves HTTPS on PORT with the certificate, and no plain HTTP there', async () => {
    const server = await startServer(env({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile }));
    try {
      assert.match(server.url, /^https:\/\//);
      const discovery = await requestTls(`${server.url}/.well-known/ticket-issuer.json`, readFileSync(certFile));
      assert.equal(discovery.status, 200);
      const scanPage = await requestTls(`${server.url}/scan/`, readFileSync(certFile));
      assert.equal(scanPage.status, 200);
      const plain = await fetch(server.url.replace('https:', 'http:') + '/healthz').then(
        (res) => res.status,
        () => 'refused',
      );
      assert.notEqual(plain, 200, 'plain HTTP is not served on the HTTPS port');
    } finally {
      await server.stop();
    }
  });

  it('the default BASE_URL is https when TLS is on', async () => {
    // A database of its own: without BASE_URL an issuer keeps the identity of its first start.
    const fresh = { DATABASE_URL: `sqlite:${join(dir, 'fresh.db')}`, BASE_URL: '' };
    const server = await startServer(env({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile, ...fresh }));
    try {
      const { body } = await requestTls(`${server.url}/.well-known/ticket-issuer.json`, readFileSync(certFile));
      assert.match((JSON.parse(body) as { iss: string }).iss, /^https:\/\/localhost:/);
    } finally {
      await server.stop();
    }
  });

  it('the console session cookie is Secure when reached over https, even under an http BASE_URL', async () => {
    const tls = { TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile };
    const fresh = { DATABASE_URL: `sqlite:${join(dir, 'cookie.db')}`, BASE_URL: 'http://127.0.0.1:8080' };
    const server = await startServer(env({ ...tls, ...fresh }));
    try {
      const signIn = await requestTls(`${server.url}/admin/v1/session`, readFileSync(certFile), {
        admin_token: 'a'.repeat(32),
      });
      assert.equal(signIn.status, 201, signIn.body);
      const setCookie = String(signIn.headers['set-cookie']);
      assert.match(setCookie, /issuer_console_session=/);
      assert.match(setCookie, /; Secure/);
    } finally {
      await server.stop();
    }
  });

  it('refuses to start with one of the two, naming the other', () => {
    const onlyCert = failedStart({ TLS_CERT_FILE: certFile });
    assert.equal(onlyCert.status, 1);
    assert.equal(
      onlyCert.stderr,
      'configuration error: TLS_CERT_FILE is set but TLS_KEY_FILE is not: set both, or neither',
    );
    const onlyKey = failedStart({ TLS_KEY_FILE: keyFile });
    assert.match(onlyKey.stderr, /^configuration error: TLS_KEY_FILE is set but TLS_CERT_FILE is not/);
  });

  it('says which file is missing, not PEM, or not the certificate’s key, without printing any of it', () => {
    const missing = failedStart({ TLS_CERT_FILE: join(dir, 'nothing.pem'), TLS_KEY_FILE: keyFile });
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /^configuration error: TLS_CERT_FILE .*nothing\.pem cannot be read \(ENOENT\)$/);

    const garbage = join(dir, 'garbage.pem');
    writeFileSync(garbage, 'not a key at all');
    const notPem = failedStart({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: garbage });
    assert.match(notPem.stderr, /^configuration error: TLS_KEY_FILE .* is not a PEM private key/);

    const otherCert = join(dir, 'other-cert.pem');
    const otherKey = join(dir, 'other-key.pem');
    makeCertificate(otherCert, otherKey);
    const mismatch = failedStart({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: otherKey });
    assert.match(mismatch.stderr, /is not the private key of TLS_CERT_FILE/);
    const keyText = readFileSync(otherKey, 'utf8');
    const keyBody = keyText.split('\n')[1]!;
    for (const result of [missing, notPem, mismatch]) {
      assert.equal(result.stderr.split('\n').length, 1, 'one line');
      assert.ok(!result.stderr.includes(keyBody), 'no key material');
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
    }
  });
});
