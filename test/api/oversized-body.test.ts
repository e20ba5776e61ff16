import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, enrollScanner, type RunningServer, startServer } from '../helpers/server.ts';

const ADMIN = 'oversized-admin-token-0123456789';

/** The 413 envelope the contract gives a body over the limit. */
function assertTooLarge(status: number, text: string): void {
  assert.equal(status, 413, text);
  const body = JSON.parse(text) as { error: { code: string; message: string; details: unknown } };
  assert.equal(body.error.code, 'INVALID_REQUEST');
  assert.match(body.error.message, /too large/);
  assert.deepEqual(body.error.details, {});
}

function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    res.on('end', () => resolve(text));
    res.on('error', reject);
  });
}

describe('a body over the limit, on a real port', () => {
  const dir = mkdtempSync(join(tmpdir(), 'issuer-oversized-'));
  let server: RunningServer;
  let eid: string;
  let tid: string;
  let apiKey: string;
  let scannerId: string;
  const checkInUrl = () => `${server.url}/api/v1/tickets/check-in`;
  const scan = (extra: Record<string, unknown> = {}) => ({
    tid,
    eid,
    scanned_at: new Date().toISOString(),
    scanner_id: scannerId,
    idempotency_key: randomUUID(),
    ...extra,
  });
  const headers = () => ({ authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' });

  before(async () => {
    server = await startServer({
      DATABASE_URL: `sqlite:${join(dir, 'issuer.db')}`,
      ADMIN_TOKEN: ADMIN,
      REQUEST_TIMEOUT_S: '3',
    });
    const event = await call(`${server.url}/admin/v1/events`, {
      bearer: ADMIN,
      body: { name: 'Big bodies', event_date: new Date(Date.now() + 3_600_000).toISOString() },
    });
    eid = String(event.body.eid);
    const ticket = await call(`${server.url}/admin/v1/events/${eid}/tickets`, {
      bearer: ADMIN,
      body: { holder_name: 'Ada', ticket_type: 'GA' },
    });
    tid = String(ticket.body.tid);
    ({ apiKey, scannerId } = await enrollScanner(server.url, ADMIN, eid));
  });
  after(async () => {
    await server.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it("Node's fetch sending a 5 MB check-in body reads the 413 envelope, not a network error", async () => {
    const body = JSON.stringify(scan({ pad: 'x'.repeat(5 * 1024 * 1024) }));
    // Several at once: an answer that closes the socket under a client still writing loses most of them.
    const answers = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const res = await fetch(checkInUrl(), { method: 'POST', headers: headers(), body });
        return { status: res.status, text: await res.text() };
      }),
    );
    for (const answer of answers) assertTooLarge(answer.status, answer.text);
  });

  it("Node's fetch streaming a 5 MB check-in body without a length reads the 413 envelope", async () => {
    const body = JSON.stringify(scan({ pad: 'y'.repeat(5 * 1024 * 1024) }));
    const answers = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const res = await fetch(checkInUrl(), {
          method: 'POST',
          headers: headers(),
          body: new Blob([body]).stream(),
          duplex: 'half',
        } as RequestInit);
        return { status: res.status, text: await res.text() };
      }),
    );
    for (const answer of answers) assertTooLarge(answer.status, answer.text);
  });

  for (const declared of [true, false]) {
    it(`a client streaming an oversized body slowly (${declared ? 'with' : 'without'} Content-Length) reads the 413 while still sending`, async () => {
      const total = 5 * 1024 * 1024;
      const req = httpRequest(checkInUrl(), {
        method: 'POST',
        headers: { ...headers(), ...(declared ? { 'content-length': String(total) } : {}) },
      });
      const chunk = Buffer.alloc(8 * 1024, 0x20);
      let sent = 0;
      const timer = setInterval(() => {
        if (sent + chunk.length > total) return;
        req.write(chunk);
        sent += chunk.length;
      }, 10);
      try {
        const res = await new Promise<IncomingMessage>((resolve, reject) => {
          req.on('response', resolve);
          req.on('error', reject);
        });
        const text = await readAll(res);
        assert.ok(sent < total, 'the answer came while the body was still being sent');
        assertTooLarge(res.statusCode ?? 0, text);
      } finally {
        clearInterval(timer);
        req.destroy();
      }
    });
  }

  it('a client that keeps trickling an oversized body is cut off after REQUEST_TIMEOUT_S', async () => {
    const req = httpRequest(checkInUrl(), { method: 'POST', headers: headers() });
    req.on('error', () => undefined);
    const started = Date.now();
    const closed = new Promise<void>((resolve) => req.on('close', () => resolve()));
    req.write(Buffer.alloc(80 * 1024, 0x20));
    const timer = setInterval(() => req.write(Buffer.alloc(1024, 0x20)), 100);
    try {
      const res = await new Promise<IncomingMessage>((resolve) => req.on('response', resolve));
      assertTooLarge(res.statusCode ?? 0, await readAll(res));
      await closed;
      const elapsed = Date.now() - started;
      assert.ok(elapsed < 3_000 + 2_500, `connection closed after ${elapsed} ms`);
    } finally {
      clearInterval(timer);
      req.destroy();
    }
  });

  it('a check-in body of 65 KiB is over the limit: 413', async () => {
    const body = JSON.stringify(scan({ pad: 'z'.repeat(65 * 1024) }));
    const res = await fetch(checkInUrl(), { method: 'POST', headers: headers(), body });
    assertTooLarge(res.status, await res.text());
  });

  it('a check-in body of 60 KiB is within the limit and is answered', async () => {
    const body = JSON.stringify(scan({ pad: 'z'.repeat(60 * 1024) }));
    assert.ok(Buffer.byteLength(body) > 60 * 1024 && Buffer.byteLength(body) < 64 * 1024);
    const res = await fetch(checkInUrl(), { method: 'POST', headers: headers(), body });
    const answer = (await res.json()) as { status: string };
    assert.equal(res.status, 200);
    assert.equal(answer.status, 'valid');
  });
});
