import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { IssuerHttpError, IssuerNetworkError, IssuerClient } from '../src/index.ts';
import { nodeHttpTransport } from '../src/node-http.ts';
import { freePort } from './issuer.ts';

/** A local server whose answer each test chooses, counting the connections it accepted. */
let respond: (req: http.IncomingMessage, res: http.ServerResponse) => void = () => undefined;
let connections = 0;
const server = http.createServer((req, res) => respond(req, res));
server.on('connection', () => (connections += 1));
let base = '';
const transport = nodeHttpTransport();

before(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  transport.close();
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

/** The body of a request, as the server received it. */
async function bodyOf(req: http.IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

describe('node:http transport', () => {
  test('sends method, headers and body, reads status, headers and body, and keeps the connection alive', async () => {
    const received: { method?: string; auth?: string; type?: string; body: string }[] = [];
    respond = (req, res) =>
      void bodyOf(req).then((body) => {
        received.push({ method: req.method, auth: req.headers.authorization, type: req.headers['content-type'], body });
        res.writeHead(201, { 'content-type': 'application/json', 'x-answer': 'yes' }).end('{"n":1}');
      });
    const before = connections;
    const headers = { authorization: 'Bearer k', 'content-type': 'application/json' };
    for (const body of ['{"a":1}', '{"a":"é"}']) {
      const answer = await transport({ method: 'POST', url: `${base}/x`, headers, body, timeoutMs: 2000 });
      assert.equal(answer.status, 201);
      assert.equal(answer.header('X-Answer'), 'yes');
      assert.equal(answer.header('retry-after'), null);
      assert.equal(answer.body, '{"n":1}');
    }
    assert.deepEqual(
      received.map((r) => r.body),
      ['{"a":1}', '{"a":"é"}'],
    );
    assert.ok(received.every((r) => r.method === 'POST' && r.auth === 'Bearer k' && r.type === 'application/json'));
    assert.equal(connections - before, 1, 'the second request reused the first one’s connection');
  });

  test('through the client: a Retry-After header reaches the typed error', async () => {
    respond = (_req, res) =>
      res
        .writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' })
        .end(JSON.stringify({ error: { code: 'RATE_LIMITED', message: 'slow down', details: {} } }));
    const client = new IssuerClient({ apiKey: 'k', transport });
    const error = await client.changes(`${base}/changes`, null).catch((e: unknown) => e);
    assert.ok(error instanceof IssuerHttpError);
    assert.equal(error.status, 429);
    assert.equal(error.issuerCode, 'RATE_LIMITED');
    assert.equal(error.retryAfterSeconds, 7);
  });

  test('through the client: a refused connection certainly did not deliver the request', async () => {
    const client = new IssuerClient({ apiKey: 'k', transport });
    const error = await client.changes(`http://127.0.0.1:${await freePort()}/changes`, null).catch((e: unknown) => e);
    assert.ok(error instanceof IssuerNetworkError);
    assert.equal(error.code, 'ISSUER_UNREACHABLE');
    assert.equal(error.delivery, 'not_sent');
    assert.match(error.message, /ECONNREFUSED/);
  });

  test('through the client: no answer within the time limit is a timeout that may have delivered', async () => {
    respond = () => undefined; // never answers
    const client = new IssuerClient({ apiKey: 'k', transport, timeoutMs: 300 });
    const started = Date.now();
    const error = await client.changes(`${base}/changes`, null).catch((e: unknown) => e);
    assert.ok(error instanceof IssuerNetworkError, String(error));
    assert.equal(error.code, 'ISSUER_TIMEOUT');
    assert.equal(error.delivery, 'maybe');
    const waited = Date.now() - started;
    assert.ok(waited >= 290 && waited < 5000, `gave up after ${waited} ms, for a limit of 300 ms`);
  });

  test('an answer cut short is an error, never a truncated body', async () => {
    respond = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"changes":[');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    const error = await transport({ method: 'GET', url: `${base}/cut`, headers: {}, timeoutMs: 2000 }).catch(
      (e: unknown) => e,
    );
    assert.ok(error instanceof Error);
    assert.equal((error as { code?: unknown }).code, 'ECONNRESET');
  });

  test('an idle connection is closed after the idle timeout; a slower answer on a busy one is still read', async () => {
    const quick = nodeHttpTransport({ idleTimeoutMs: 200 });
    try {
      respond = (_req, res) => setTimeout(() => res.writeHead(200).end('late'), 500);
      const slow = await quick({ method: 'GET', url: `${base}/slow`, headers: {}, timeoutMs: 2000 });
      assert.equal(slow.body, 'late', 'an answer slower than the idle timeout still arrives');
      let closed!: Promise<void>;
      respond = (req, res) => {
        closed = new Promise<void>((resolve) => req.socket.once('close', () => resolve()));
        res.writeHead(200).end('ok');
      };
      await quick({ method: 'GET', url: `${base}/a`, headers: {}, timeoutMs: 2000 });
      const started = Date.now();
      await closed;
      const idle = Date.now() - started;
      assert.ok(idle >= 150 && idle < 2000, `the idle connection was closed after ${idle} ms`);
    } finally {
      quick.close();
    }
  });

  test('only http and https URLs are sent', async () => {
    await assert.rejects(
      transport({ method: 'GET', url: 'ftp://127.0.0.1/x', headers: {}, timeoutMs: 1000 }),
      /unsupported protocol ftp:/,
    );
  });
});
