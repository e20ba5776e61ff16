/**
 * Mail. The organizer queues one email per ticket of an event of N tickets (each with an email) with
 * one `POST /admin/v1/events/{eid}/deliveries`, and the mail worker sends them all to a local SMTP server
 * (`smtp-server`, in a thread of its own: a mail server runs elsewhere, it should not share the
 * issuer's event loop). Measured from the request until the server has had every message and the store
 * has recorded every one as sent: emails per second, each with its ticket PDF composed and attached.
 * SQLite on a temporary file, every commit durable.
 *
 * Run: node --import tsx bench/mail.ts [emails] (default 10000). Prints a table; never fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import { admin, appOn, benchConfig, json } from './inject.ts';
import { startSmtpThread } from './smtp-thread.ts';

const EMAILS = Number(process.argv[2] ?? 10_000);
const dir = mkdtempSync(join(tmpdir(), 'issuer-bench-mail-'));

async function main(): Promise<void> {
  const server = await startSmtpThread();
  const store = new SqliteStore(join(dir, 'issuer.db'));
  const config = benchConfig({ SMTP_URL: `smtp://127.0.0.1:${server.port}`, MAIL_FROM: 'bench@example.org' });
  const app = await appOn(config, store, false);
  await app.ready();
  try {
    const { eid } = await json<{ eid: string }>(
      app.inject({
        method: 'POST',
        url: '/admin/v1/events',
        headers: admin,
        payload: { name: 'Mail Bench', event_date: '2030-01-01T18:00:00Z' },
      }),
    );
    for (let start = 0; start < EMAILS; start += 10_000) {
      const tickets = Array.from({ length: Math.min(10_000, EMAILS - start) }, (_, i) => ({
        holder_name: `Holder ${start + i}`,
        ticket_type: 'GA',
        email: `holder${start + i}@example.org`,
      }));
      await json(
        app.inject({ method: 'POST', url: `/admin/v1/events/${eid}/tickets`, headers: admin, payload: { tickets } }),
      );
    }
    const started = performance.now();
    const queued = await json<{ queued: number }>(
      app.inject({
        method: 'POST',
        url: `/admin/v1/events/${eid}/deliveries`,
        headers: admin,
        payload: { tids: null },
      }),
    );
    const queuedMs = performance.now() - started;
    for (;;) {
      if (server.received() >= EMAILS && (await store.deliveries.countQueuedDeliveries()) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(
      [
        '',
        '## Mail: one POST queues an event, the worker sends it (SQLite, a local SMTP server)',
        '',
        '| emails | queue request | all sent and recorded | emails/s |',
        '| ---: | ---: | ---: | ---: |',
        `| ${queued.queued} | ${queuedMs.toFixed(0)} ms | ${seconds.toFixed(1)} s | ${(EMAILS / seconds).toFixed(0)} |`,
        '',
      ].join('\n'),
    );
  } finally {
    await app.close();
    await store.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
