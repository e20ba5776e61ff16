import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { call, type RunningServer, startServer } from '../helpers/server.ts';
import { TestSmtpServer } from '../helpers/smtp-server.ts';

/**
 * Mail across a crash: the issuer is killed (`kill -9`) while the SMTP server holds one of its emails
 * unanswered. Nothing already queued is lost: a new process on the same store sends every email once
 * the cut-off attempt's lease has passed (MAIL_SEND_TIMEOUT_S and 30 s), the one cut off perhaps twice
 * (at least once: the server may have taken it before the crash), every other exactly once, and each
 * is recorded as sent.
 */

const ADMIN = 'mail-crash-admin-token-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'issuer-mail-crash-'));
const smtp = await TestSmtpServer.start();
const env = {
  DATABASE_URL: `sqlite:${join(dir, 'issuer.db')}`,
  ADMIN_TOKEN: ADMIN,
  LOG_LEVEL: 'warn',
  SMTP_URL: smtp.url,
  MAIL_FROM: 'tickets@example.org',
  MAIL_SEND_TIMEOUT_S: '2',
  MAIL_RETRY_SCHEDULE_S: '1,1,1',
};

const until = async (what: string, ok: () => boolean | Promise<boolean>, ms: number) => {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

describe('mail across a kill -9 of the issuer', () => {
  let server: RunningServer | null = null;
  after(async () => {
    await server?.stop('SIGKILL');
    await smtp.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loses no queued email: a new process sends them all, the one cut off at least once, the others once', async () => {
    server = await startServer(env);
    const event = await call(`${server.url}/admin/v1/events`, {
      bearer: ADMIN,
      body: { name: 'Crash Fest', event_date: new Date(Date.now() + 86_400_000).toISOString() },
    });
    const eid = String(event.body.eid);
    const holders = Array.from({ length: 12 }, (_, i) => `guest${i}@example.org`);
    const issued = await call(`${server.url}/admin/v1/events/${eid}/tickets`, {
      bearer: ADMIN,
      body: { tickets: holders.map((email, i) => ({ holder_name: `Guest ${i}`, ticket_type: 'GA', email })) },
    });
    assert.equal(issued.status, 201, issued.text);

    // The server takes each message's data but does not answer: the first attempts hang until the kill.
    smtp.delayMs = 30_000;
    const queued = await call(`${server.url}/admin/v1/events/${eid}/deliveries`, {
      bearer: ADMIN,
      body: { tids: null },
    });
    assert.equal(queued.status, 202, queued.text);
    assert.equal(queued.body.queued, holders.length);
    await until('an email in flight', () => smtp.answered > 0, 20_000);
    await server.stop('SIGKILL');
    server = null;
    const cutOff = smtp.answered;
    assert.equal(smtp.received.length, 0, 'nothing was answered before the kill');

    smtp.delayMs = 0;
    server = await startServer(env);
    const running = server;
    const sent = async () => {
      const list = await call(`${running.url}/admin/v1/events/${eid}/deliveries?status=sent`, { bearer: ADMIN });
      return (list.body.deliveries as unknown[]).length === holders.length;
    };
    // The attempts cut off wait out their lease (2 s + 30 s); the rest go at once.
    await until('every email sent and recorded', sent, 60_000);
    // The server answered the held messages when their connections closed at the kill, or never: either way,
    // every holder has their email, those cut off at most twice, the others exactly once.
    const times = new Map(holders.map((email) => [email, 0]));
    for (const message of smtp.received) for (const to of message.to) times.set(to, (times.get(to) ?? 0) + 1);
    for (const [email, n] of times) assert.ok(n >= 1, `${email} got its email`);
    const twice = [...times.values()].filter((n) => n > 1).length;
    assert.ok(twice <= cutOff, `only emails cut off by the crash may come twice (${twice} of ${cutOff})`);
    assert.ok([...times.values()].every((n) => n <= 2));
  });
});
