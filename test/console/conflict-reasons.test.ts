import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe } from 'node:test';
import {
  admin,
  browserSkipReason,
  browserTest,
  consoleFixture,
  createEvent,
  enrollWith,
  openConsole,
  signIn,
} from './harness.ts';

browserSkipReason();

describe('console in Chromium: conflicts of the entry rules', () => {
  const f = consoleFixture();
  before(async () => f.open());
  after(async () => f.close());

  browserTest('the Conflicts section says which admissions the entry rules refused, and why', async () => {
    const issuer = f.issuer();
    const eid = await createEvent(issuer, 'Rules Fest');
    const ticket = (holder_name: string, extra: Record<string, unknown> = {}) =>
      admin<{ tid: string }>(issuer, 'POST', `/events/${eid}/tickets`, { holder_name, ticket_type: 'GA', ...extra });
    // Valid from tomorrow: let in offline today, the rules refuse it.
    const early = await ticket('Ada Lovelace', { valid_from: new Date(Date.now() + 24 * 3600_000).toISOString() });
    const twice = await ticket('Grace Hopper');
    const [north, south] = await Promise.all(
      ['north', 'south'].map(async (gate) => {
        const { token } = await admin<{ token: string }>(issuer, 'POST', `/events/${eid}/enrollment-tokens`, {
          gate_id: gate,
        });
        return { gate, ...(await enrollWith(issuer, token, gate)) };
      }),
    );
    const scan = (scanner: typeof north, tid: string, offline: boolean, minutesAgo: number) =>
      fetch(`${issuer.url}/api/v1/tickets/check-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${scanner!.apiKey}` },
        body: JSON.stringify({
          tid,
          eid,
          scanned_at: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
          scanner_id: scanner!.scannerId,
          gate_id: scanner!.gate,
          idempotency_key: randomUUID(),
          ...(offline ? { admitted_offline: true } : {}),
        }),
      });
    assert.equal((await scan(north, early.tid, true, 3)).status, 403);
    assert.equal((await scan(north, twice.tid, false, 2)).status, 200);
    assert.equal((await scan(south, twice.tid, true, 1)).status, 200);

    const { context, page } = await openConsole(f.browser(), issuer);
    try {
      await signIn(page);
      await page.getByRole('link', { name: 'Rules Fest' }).click();
      const conflicts = page.getByRole('region', { name: 'Conflicts' });
      const refused = conflicts.locator('li[data-reason="not_valid_now"]');
      await refused.waitFor();
      assert.match(
        (await refused.textContent())!,
        /^Let in .* at north \(scanner Gate north phone\), admitted offline: not valid now$/,
      );
      const again = conflicts.getByText(/^Again .* at south \(scanner Gate south phone\), admitted offline$/);
      await again.waitFor();
      assert.equal(await again.getAttribute('data-reason'), null);
      assert.equal(await page.getByTestId('count-conflicts').textContent(), '2');
    } finally {
      await context.close();
    }
  });
});
