import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Page } from 'playwright-core';
import { fitsWidth, seriousViolations } from '../helpers/axe.ts';
import { Receiver, verify } from '../helpers/webhook-receiver.ts';
import { admin, browserSkipReason, browserTest, consoleFixture, openConsole, signIn } from './harness.ts';

interface Webhook {
  webhook_id: string;
  url: string;
  enabled: boolean;
  disabled_reason: string | null;
}

const typeOf = (body: string) => (JSON.parse(body) as { type: string }).type;

/** Opens Webhooks from the header, as an organizer does. */
async function openWebhooks(page: Page): Promise<void> {
  await signIn(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
  await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
}

/** Adds an endpoint through the form; answers the secret the page shows once. */
async function addEndpoint(page: Page, url: string, type: string): Promise<string> {
  await page.getByLabel('Endpoint URL').fill(url);
  await page.getByRole('group', { name: 'Event types' }).getByLabel(type, { exact: true }).check();
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  const shown = page.getByRole('status').filter({ hasText: 'will not be shown again' });
  return (await shown.getByText(/^whsec_/).textContent())!;
}

browserSkipReason();
describe('console in Chromium: webhooks', () => {
  const f = consoleFixture({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  let receiver: Receiver;
  before(async () => {
    await f.open();
    receiver = await Receiver.start();
  });
  after(async () => {
    await receiver?.close();
    await f.close();
  });

  browserTest(
    'adds an endpoint (secret shown once, copied), sends a test whose signed attempt shows within 5 s, redelivers, disables, enables, rotates and deletes',
    async () => {
      const issuer = f.issuer();
      const { context, page } = await openConsole(f.browser(), issuer);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: issuer.url });
      try {
        await openWebhooks(page);
        await page.getByText('No endpoint yet.').waitFor();

        await page.getByLabel('Endpoint URL').fill(receiver.url);
        await page.getByRole('button', { name: 'Add endpoint' }).click();
        await page.getByRole('alert').filter({ hasText: 'event_types' }).waitFor();

        const secret = await addEndpoint(page, receiver.url, 'ticket.checked_in');
        assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
        await page.getByRole('button', { name: `Copy secret of ${receiver.url}` }).click();
        await page.getByRole('status').filter({ hasText: 'will not be shown again' }).getByText('Copied').waitFor();
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
        const [webhook] = (await admin<{ webhooks: Webhook[] }>(issuer, 'GET', '/webhooks')).webhooks;
        assert.ok(webhook);

        const endpoint = page
          .getByRole('listitem')
          .filter({ has: page.getByRole('heading', { level: 3, name: receiver.url }) });
        await endpoint.getByText('Types: ticket.checked_in').waitFor();
        await endpoint.getByText('Enabled', { exact: true }).waitFor();
        await endpoint.getByText('No message yet.').waitFor();

        const started = Date.now();
        await endpoint.getByRole('button', { name: `Send test to ${receiver.url}` }).click();
        const [request] = await receiver.waitFor((r) => typeOf(r.body) === 'webhook.test', 1, 5000);
        assert.deepEqual(verify(secret, request!).data, { webhook_id: webhook.webhook_id });
        const attempts = endpoint.getByRole('list', { name: `Attempts of ${request!.id}` });
        await attempts.getByText(/HTTP 200 · \d+ ms$/).waitFor({ timeout: Math.max(0, started + 5000 - Date.now()) });
        await endpoint.getByText('Delivered', { exact: true }).waitFor();

        await page.getByRole('button', { name: `Redeliver ${request!.id}` }).click();
        await receiver.waitFor((r) => r.id === request!.id, 2, 5000);
        await attempts.getByRole('listitem').nth(1).waitFor({ timeout: 5000 });

        await endpoint.getByRole('button', { name: `Disable ${receiver.url}` }).click();
        await endpoint.getByText('Disabled (by the organizer)').waitFor();
        assert.equal((await admin<Webhook>(issuer, 'GET', `/webhooks/${webhook.webhook_id}`)).enabled, false);
        await endpoint.getByRole('button', { name: `Enable ${receiver.url}` }).click();
        await endpoint.getByText('Enabled', { exact: true }).waitFor();
        assert.equal((await admin<Webhook>(issuer, 'GET', `/webhooks/${webhook.webhook_id}`)).enabled, true);

        await endpoint.getByRole('button', { name: `Rotate secret of ${receiver.url}` }).click();
        const rotated = endpoint.getByRole('status').filter({ hasText: 'will not be shown again' });
        const newSecret = (await rotated.getByText(/^whsec_/).textContent())!;
        assert.notEqual(newSecret, secret);
        await endpoint.getByRole('button', { name: `Send test to ${receiver.url}` }).click();
        const tests = await receiver.waitFor((r) => typeOf(r.body) === 'webhook.test' && r.id !== request!.id);
        assert.equal(verify(newSecret, tests[0]!).type, 'webhook.test', 'signed by the new secret too');
        await endpoint.getByText('HTTP 200').nth(2).waitFor({ timeout: 5000 });

        assert.deepEqual(await seriousViolations(page), []);
        await page.screenshot({ path: '/tmp/webhooks-page.png', fullPage: true });

        page.once('dialog', (dialog) => void dialog.dismiss());
        await endpoint.getByRole('button', { name: `Delete ${receiver.url}` }).click();
        await endpoint.getByRole('button', { name: `Delete ${receiver.url}` }).waitFor();
        page.once('dialog', (dialog) => void dialog.accept());
        await endpoint.getByRole('button', { name: `Delete ${receiver.url}` }).click();
        await page.getByText(`Endpoint ${receiver.url} deleted.`).waitFor();
        await page.getByText('No endpoint yet.').waitFor();
        assert.deepEqual((await admin<{ webhooks: Webhook[] }>(issuer, 'GET', '/webhooks')).webhooks, []);
      } finally {
        await context.close();
      }
    },
  );

  browserTest(
    'an endpoint whose receiver answers 410 reads Disabled (gone); leaving the page stops its polling; it fits 375 px',
    async () => {
      const issuer = f.issuer();
      const gone = await Receiver.start();
      gone.answer = () => ({ status: 410 });
      const { context, page } = await openConsole(f.browser(), issuer, { width: 375 });
      try {
        await openWebhooks(page);
        await addEndpoint(page, gone.url, 'All types');
        const endpoint = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: gone.url }) });
        await endpoint.getByText('Types: all types').waitFor();
        await endpoint.getByRole('button', { name: `Send test to ${gone.url}` }).click();
        await endpoint.getByText('Disabled (gone)').waitFor({ timeout: 5000 });
        await endpoint.getByText('The receiver answered 410 Gone.').waitFor();
        await endpoint.getByText(/HTTP 410/).waitFor();
        assert.ok(await fitsWidth(page), 'no horizontal scrolling at 375 px');

        const polled: string[] = [];
        page.on('request', (request) => {
          if (request.url().includes('/admin/v1/webhooks')) polled.push(request.url());
        });
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Signing keys' }).click();
        await page.getByRole('heading', { level: 1, name: 'Signing keys' }).waitFor();
        await new Promise((resolve) => setTimeout(resolve, 200)); // a refresh already under way may finish
        const leftWith = polled.length;
        await new Promise((resolve) => setTimeout(resolve, 2500));
        assert.equal(polled.length, leftWith, 'no webhook request after leaving the page');
      } finally {
        await context.close();
        await gone.close();
      }
    },
  );
  browserTest('a disabled endpoint’s Send test is off, saying why; enabling it turns the button back on', async () => {
    const issuer = f.issuer();
    const quiet = await Receiver.start();
    const { context, page } = await openConsole(f.browser(), issuer);
    try {
      await openWebhooks(page);
      await addEndpoint(page, quiet.url, 'ticket.revoked');
      const endpoint = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: quiet.url }) });
      const send = endpoint.getByRole('button', { name: `Send test to ${quiet.url}` });
      await endpoint.getByText('Enabled', { exact: true }).waitFor();
      assert.equal(await send.isEnabled(), true);

      await endpoint.getByRole('button', { name: `Disable ${quiet.url}` }).click();
      await endpoint.getByText('Disabled (by the organizer)').waitFor();
      assert.equal(await send.isDisabled(), true, 'no test is sent to a disabled endpoint');
      const why = 'Send test is off while the endpoint is disabled: enable it first.';
      await endpoint.getByText(why).waitFor();
      assert.equal(await send.getAttribute('aria-describedby'), await endpoint.getByText(why).getAttribute('id'));
      const { webhooks } = await admin<{ webhooks: Webhook[] }>(issuer, 'GET', '/webhooks');
      const id = webhooks.find((webhook) => webhook.url === quiet.url)!.webhook_id;
      const { deliveries } = await admin<{ deliveries: unknown[] }>(issuer, 'GET', `/webhooks/${id}/deliveries`);
      assert.deepEqual(deliveries, [], 'nothing was queued for it');

      await endpoint.getByRole('button', { name: `Enable ${quiet.url}` }).click();
      await endpoint.getByText('Enabled', { exact: true }).waitFor();
      assert.equal(await send.isEnabled(), true);
      assert.equal(await endpoint.getByText(why).count(), 0);
    } finally {
      await context.close();
      await quiet.close();
    }
  });
});
