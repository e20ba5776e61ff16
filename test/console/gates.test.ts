import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import {
  admin,
  browserSkipReason,
  browserTest,
  checkIn,
  consoleFixture,
  createEvent,
  enrollWith,
  openConsole,
  signIn,
} from './harness.ts';

browserSkipReason();
describe('console in Chromium: the gate editor', () => {
  const f = consoleFixture();
  before(() => f.open());
  after(() => f.close());

  browserTest('declares a gate that admits some types, which then refuses the others, and removes it', async () => {
    const issuer = f.issuer();
    const eid = await createEvent(issuer, 'Gated Gala');
    const { tickets } = await admin<{ tickets: { tid: string }[] }>(issuer, 'POST', `/events/${eid}/tickets`, {
      tickets: [{ holder_name: 'Grace Hopper', ticket_type: 'GA' }],
    });
    const { context, page } = await openConsole(f.browser(), issuer);
    try {
      await signIn(page);
      await page.getByRole('link', { name: 'Gated Gala' }).click();
      const gates = page.getByRole('region', { name: 'Gates' });
      await gates.getByText('No gate declared').waitFor();

      await gates.getByLabel('Gate ID').fill('vip');
      await gates.getByLabel('Gate name').fill('VIP entrance');
      await gates.getByLabel('Admitted ticket types').fill('VIP, Crew, VIP');
      await gates.getByRole('button', { name: 'Save gate' }).click();
      await gates.getByText('Admits VIP, Crew').waitFor();
      assert.deepEqual((await admin<{ gates: unknown[] }>(issuer, 'GET', `/events/${eid}/gates`)).gates, [
        { gate_id: 'vip', name: 'VIP entrance', admits: ['VIP', 'Crew'] },
      ]);

      const { token } = await admin<{ token: string }>(issuer, 'POST', `/events/${eid}/enrollment-tokens`, {});
      const scanner = await enrollWith(issuer, token);
      const refused = await checkIn(issuer, scanner, eid, tickets[0]!.tid, 'vip');
      assert.equal(refused.status, 403);

      page.once('dialog', (dialog) => void dialog.accept());
      await gates.getByRole('button', { name: 'Remove gate VIP entrance' }).click();
      await gates.getByText('No gate declared').waitFor();
      assert.equal((await checkIn(issuer, scanner, eid, tickets[0]!.tid, 'vip')).body.status, 'valid');
    } finally {
      await context.close();
    }
  });
});
