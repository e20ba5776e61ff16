import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { FixedClock } from '../../src/domain/clock.ts';
import { hashSecret } from '../../src/domain/ids.ts';
import type { App } from '../../src/http/context.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { ADMIN_TOKEN, adminCall, BASE_URL, LogSink, NO_LIMITS } from '../helpers/app.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';
import { TestSmtpServer } from '../helpers/smtp-server.ts';

/**
 * The mail outbox is durable and shared: queued mail survives a restart (a second app on the same
 * SQLite file sends it), and two instances on one PostgreSQL database send each email once.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const smtp = await TestSmtpServer.start();
const ENV = {
  BASE_URL,
  ADMIN_TOKEN,
  LOG_LEVEL: 'warn',
  ...NO_LIMITS,
  SMTP_URL: smtp.url,
  MAIL_FROM: 'tickets@example.org',
  MAIL_RETRY_SCHEDULE_S: '1,1,1',
};

async function issuerOn(store: Store, mailWorker: boolean): Promise<App> {
  return buildApp(loadConfig(ENV), {
    store,
    clock: new FixedClock(new Date()),
    keyEncryptionKey: Buffer.alloc(32, 7),
    adminTokenHash: hashSecret(ADMIN_TOKEN),
    logStream: new LogSink(),
    mailWorker,
  });
}

/** An event with `count` tickets, each with an address of its own; answers the event and the addresses. */
async function eventWithTickets(app: App, count: number, tag: string): Promise<{ eid: string; emails: string[] }> {
  const { eid } = await adminCall<{ eid: string }>(app, 'POST', '/admin/v1/events', {
    name: `Outbox ${tag}`,
    event_date: '2026-06-05T10:00:00Z',
  });
  const emails = Array.from({ length: count }, (_, i) => `${tag}-${i}.${process.pid}@example.org`);
  await adminCall(app, 'POST', `/admin/v1/events/${eid}/tickets`, {
    tickets: emails.map((email, i) => ({ holder_name: `Holder ${i}`, ticket_type: 'GA', email })),
  });
  return { eid, emails };
}

async function allSent(app: App, eid: string, count: number): Promise<Json[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const list = await adminCall<{ deliveries: Json[] }>(app, 'GET', `/admin/v1/events/${eid}/deliveries?limit=1000`);
    if (list.deliveries.length === count && list.deliveries.every((d) => d.status === 'sent')) return list.deliveries;
    if (Date.now() > deadline) throw new Error(`not all sent: ${JSON.stringify(list.deliveries.slice(0, 5))}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const pg = await postgresAvailability('two issuers sending mail on PostgreSQL');
/** This instance's `issuer_mail_attempts_total{result="sent"}`. */
async function sentCount(app: App): Promise<number> {
  const res = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const line = res.body.split('\n').find((l) => l.startsWith('issuer_mail_attempts_total{result="sent"}'));
  return Number(line?.split(' ')[1] ?? NaN);
}

const receivedBy = (email: string) => smtp.received.filter((m) => m.to.includes(email)).length;

describe('the mail outbox across restarts and instances', () => {
  const dir = mkdtempSync(join(tmpdir(), 'issuer-mail-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('mail queued by an issuer that stops before sending is sent by the next one on the same SQLite file', async () => {
    const file = join(dir, 'issuer.db');
    const first = await issuerOn(new SqliteStore(file), false);
    const { eid, emails } = await eventWithTickets(first, 3, 'restart');
    assert.deepEqual(await adminCall(first, 'POST', `/admin/v1/events/${eid}/deliveries`, { tids: null }, 202), {
      queued: 3,
    });
    await first.close();
    assert.equal(
      emails.map(receivedBy).reduce((a, b) => a + b, 0),
      0,
      'nothing sent before the restart',
    );
    const store = new SqliteStore(file);
    const second = await issuerOn(store, true);
    await second.ready();
    try {
      await allSent(second, eid, 3);
      assert.deepEqual(emails.map(receivedBy), [1, 1, 1]);
    } finally {
      await second.close();
      await store.close();
    }
  });

  itUnless(pg.skip)('two instances on one PostgreSQL database send each email once', async () => {
    if (pg.problem !== null) assert.fail(`PostgreSQL is required (REQUIRE_SERVICES=1): ${pg.problem}`);
    const database = await freshDatabase();
    const stores = [await PostgresStore.open(database.url), await PostgresStore.open(database.url)];
    const apps = [await issuerOn(stores[0]!, false), await issuerOn(stores[1]!, true)];
    // A slow server: each message takes a while, so both workers claim while others are under way.
    smtp.delayMs = 50;
    try {
      const { eid, emails } = await eventWithTickets(apps[0]!, 60, 'pair');
      await apps[0]!.close();
      apps[0] = await issuerOn(stores[0]!, true);
      await Promise.all(apps.map((app) => app.ready()));
      await adminCall(apps[0]!, 'POST', `/admin/v1/events/${eid}/deliveries`, { tids: null }, 202);
      const sent = await allSent(apps[1]!, eid, 60);
      assert.ok(sent.every((d) => d.attempts === 1));
      // Each instance counts its own sends: together, one per email.
      const sentBy = await Promise.all(apps.map((app) => sentCount(app)));
      assert.equal(sentBy[0]! + sentBy[1]!, 60, `sent by each instance: ${sentBy.join(', ')}`);
      assert.deepEqual(
        emails.map(receivedBy),
        emails.map(() => 1),
        'each email arrived once',
      );
    } finally {
      smtp.delayMs = 0;
      for (const app of apps) await app.close();
      for (const store of stores) await store.close();
      await database.drop();
    }
  });
});
