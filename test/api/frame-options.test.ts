import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, scenario, type Scenario, testIssuer, type TestIssuer } from '../helpers/app.ts';

/** Writes raw bytes to the port and answers what came back before the socket closed. */
function raw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.setTimeout(3000, () => socket.destroy());
    socket.write(bytes);
  });
}

describe('every answer carries X-Frame-Options: DENY, agreeing with frame-ancestors none', () => {
  let t: TestIssuer;
  let s: Scenario;
  let port: number;
  before(async () => {
    t = await testIssuer();
    s = await scenario(t.app);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  after(() => t.close());

  it('on successes, errors of the routes and of the framework, the console and the API reference', async () => {
    const json = { 'content-type': 'application/json' };
    const requests = [
      { url: '/.well-known/ticket-issuer.json' },
      { url: '/healthz' },
      { url: '/admin/v1/events', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
      { url: '/admin/v1/events' },
      { url: '/no/such/route' },
      { method: 'DELETE' as const, url: '/.well-known/ticket-issuer.json' },
      { method: 'POST' as const, url: '/api/v1/scanners/enroll', headers: json, payload: '{"token": ' },
      {
        method: 'POST' as const,
        url: '/api/v1/scanners/enroll',
        headers: { 'content-type': 'text/plain' },
        payload: 'x',
      },
      {
        method: 'POST' as const,
        url: '/api/v1/tickets/check-in',
        headers: { ...json, authorization: `Bearer ${s.apiKey}` },
        payload: JSON.stringify({ pad: 'x'.repeat(70 * 1024) }),
      },
      { url: '/%E0%A4%A' },
      { url: `/api/v1/tickets/${'x'.repeat(600)}/status` },
      { url: '/console/' },
      { url: '/docs' },
      { url: '/openapi.json' },
    ];
    const statuses = new Set<number>();
    for (const request of requests) {
      const res = await t.app.inject(request);
      statuses.add(res.statusCode);
      assert.equal(res.headers['x-frame-options'], 'DENY', `${request.url}: ${res.statusCode}`);
      assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/, request.url);
    }
    for (const status of [200, 400, 401, 404, 405, 413, 414, 415]) assert.ok(statuses.has(status), String(status));
  });

  it("on answers to requests Node's parser refuses (431, 400), written before any route runs", async () => {
    const requests = [
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
    ];
    for (const request of requests) {
      const answer = await raw(port, request);
      assert.match(answer, /^HTTP\/1\.1 4\d\d /);
      const head = answer.slice(0, answer.indexOf('\r\n\r\n')).toLowerCase();
      assert.match(head, /\r\nx-frame-options: deny\r\n/);
      assert.match(head, /\r\ncontent-security-policy: [^\r]*frame-ancestors 'none'/);
      assert.match(head, /\r\nx-content-type-options: nosniff\r\n/);
    }
  });
});
