import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createSecureServer, type Http2Server, type IncomingHttpHeaders } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwtVerify, decodeProtectedHeader } from 'jose';

/** One push as the local APNs received it, with what it found of its provider token. */
export interface ReceivedPush {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The JWT verified with the APNs key's public half: its issuer, key id and iat; null when it did not verify. */
  token: { jwt: string; iss: unknown; kid: unknown; iat: unknown } | null;
}

export interface LocalApns {
  url: string;
  /** The certificate of the server (self-signed): the only one the client under test should trust. */
  ca: Buffer;
  pushes: ReceivedPush[];
  /** What the next pushes are answered: a status and APNs's JSON reason (default 200); status 0: never. */
  answer: (push: ReceivedPush) => { status: number; reason?: string };
  close(): Promise<void>;
}

/**
 * A local APNs over HTTP/2 and TLS that checks what Apple checks: the ES256 provider token against the
 * public key of the APNs key, `kid` and `iss`; and records each push's path, headers and body.
 */
export async function startLocalApns(publicKeyFile: string): Promise<LocalApns> {
  const dir = mkdtempSync(join(tmpdir(), 'issuer-apns-'));
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
    join(dir, 'key.pem'),
    '-out',
    join(dir, 'cert.pem'),
  ]);
  assert.equal(made.status, 0, made.stderr?.toString());
  const cert = readFileSync(join(dir, 'cert.pem'));
  const publicKey = createPublicKey(readFileSync(publicKeyFile));
  const local: LocalApns = {
    url: '',
    ca: cert,
    pushes: [],
    answer: () => ({ status: 200 }),
    close: async () => undefined,
  };
  const server: Http2Server = createSecureServer({ key: readFileSync(join(dir, 'key.pem')), cert });
  const sessions = new Set<import('node:http2').ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  server.on('stream', (stream, headers) => {
    let body = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (body += chunk));
    stream.on('end', () => {
      void (async () => {
        const jwt = String(headers.authorization ?? '').replace(/^bearer /, '');
        let token: ReceivedPush['token'] = null;
        try {
          const { payload } = await jwtVerify(jwt, publicKey, { algorithms: ['ES256'] });
          token = { jwt, iss: payload.iss, kid: decodeProtectedHeader(jwt).kid, iat: payload.iat };
        } catch {
          token = null;
        }
        const push: ReceivedPush = { path: String(headers[':path']), headers, body, token };
        local.pushes.push(push);
        const answer = token === null ? { status: 403, reason: 'InvalidProviderToken' } : local.answer(push);
        if (answer.status === 0) return;
        stream.respond({ ':status': answer.status, 'content-type': 'application/json' });
        stream.end(answer.status === 200 ? '' : JSON.stringify({ reason: answer.reason ?? 'BadRequest' }));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  local.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  local.close = async () => {
    for (const session of sessions) session.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  };
  return local;
}
