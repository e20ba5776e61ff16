import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { dirname, sep } from 'node:path';
import { describe, it } from 'node:test';
import { adminCall, testIssuer } from '../helpers/app.ts';

/**
 * Mail's SMTP exchange is not the event loop's: an issuer without SMTP_URL never loads nodemailer (idle
 * memory), and one that sends loads it in its mail thread only, where each email is drawn, built and
 * sent. Seen from this process's module cache, which holds every CommonJS module its event loop loaded
 * (the threads have caches of their own).
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const require = createRequire(import.meta.url);
const NODEMAILER = dirname(require.resolve('nodemailer/package.json')) + sep;
const nodemailerLoadedHere = () => Object.keys(require.cache).some((file) => file.startsWith(NODEMAILER));

/** A loopback port nothing listens on (connections to it are refused). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('nodemailer stays off the event loop', () => {
  it('this check sees CommonJS modules that the event loop loads', async () => {
    const before = Object.keys(require.cache).length;
    await import('qrcode');
    assert.ok(Object.keys(require.cache).length > before);
    assert.ok(Object.keys(require.cache).some((file) => file.includes(`${sep}qrcode${sep}`)));
  });

  it('an issuer without SMTP_URL starts and serves without loading it', async () => {
    const issuer = await testIssuer();
    try {
      const { eid } = await adminCall<{ eid: string }>(issuer.app, 'POST', '/admin/v1/events', {
        name: 'Idle Fest',
        event_date: '2026-06-05T10:00:00Z',
      });
      await adminCall(issuer.app, 'POST', `/admin/v1/events/${eid}/tickets`, {
        holder_name: 'Ada',
        ticket_type: 'GA',
        email: 'ada@example.org',
      });
      assert.equal(nodemailerLoadedHere(), false);
    } finally {
      await issuer.close();
    }
  });

  it('an issuer that sends tries the SMTP server from its mail thread, and its event loop never loads nodemailer', async () => {
    const issuer = await testIssuer({
      env: {
        SMTP_URL: `smtp://127.0.0.1:${await closedPort()}`,
        MAIL_FROM: 'tickets@example.org',
        MAIL_RETRY_SCHEDULE_S: '60',
      },
    });
    try {
      const { eid } = await adminCall<{ eid: string }>(issuer.app, 'POST', '/admin/v1/events', {
        name: 'Thread Fest',
        event_date: '2026-06-05T10:00:00Z',
      });
      await adminCall(issuer.app, 'POST', `/admin/v1/events/${eid}/tickets`, {
        holder_name: 'Bo',
        ticket_type: 'GA',
        email: 'bo@example.org',
      });
      await adminCall(issuer.app, 'POST', `/admin/v1/events/${eid}/deliveries`, { tids: null }, 202);
      const deadline = Date.now() + 20_000;
      let delivery: Json | undefined;
      for (;;) {
        delivery = await firstDelivery(issuer.app, eid);
        if (delivery?.attempts >= 1) break;
        if (Date.now() > deadline) throw new Error(`not attempted: ${JSON.stringify(delivery)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(delivery!.status, 'queued');
      assert.match(delivery!.last_error, /ECONNREFUSED/);
      assert.equal(nodemailerLoadedHere(), false);
    } finally {
      await issuer.close();
    }
  });
});

async function firstDelivery(app: Parameters<typeof adminCall>[0], eid: string): Promise<Json | undefined> {
  return (await adminCall<{ deliveries: Json[] }>(app, 'GET', `/admin/v1/events/${eid}/deliveries`)).deliveries[0];
}
