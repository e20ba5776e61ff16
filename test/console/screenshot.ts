/**
 * Makes docs/console-event.png, the README's picture of an event page with some data:
 * `node --import tsx test/console/screenshot.ts` (needs Chromium, see CHROMIUM_PATH).
 */
import { randomUUID } from 'node:crypto';
import { admin, enrollWith, launchBrowser, openConsole, signIn, startIssuer, type RunningIssuer } from './harness.ts';

const GATES = ['north', 'south', 'east'];
const NAMES = ['Ada', 'Alan', 'Grace', 'Edsger', 'Barbara', 'Donald', 'Frances', 'John', 'Margaret', 'Ken'];
const SURNAMES = ['Lovelace', 'Turing', 'Hopper', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Backus', 'Hamilton'];

async function scan(issuer: RunningIssuer, scanner: { apiKey: string; scannerId: string }, body: object) {
  await fetch(`${issuer.url}/api/v1/tickets/check-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${scanner.apiKey}` },
    body: JSON.stringify({ scanner_id: scanner.scannerId, idempotency_key: randomUUID(), ...body }),
  });
}

const issuer = await startIssuer();
const start = new Date(Date.now() + 3600_000).toISOString();
const { eid } = await admin<{ eid: string }>(issuer, 'POST', '/events', {
  name: 'Harbour Lights Festival',
  event_date: start,
});
const { tickets } = await admin<{ tickets: { tid: string }[] }>(issuer, 'POST', `/events/${eid}/tickets`, {
  tickets: Array.from({ length: 480 }, (_, i) => ({
    holder_name: `${NAMES[i % NAMES.length]} ${SURNAMES[(i * 7) % SURNAMES.length]}`,
    ticket_type: i % 5 === 0 ? 'VIP' : 'General admission',
  })),
});
for (const gate of GATES) {
  await admin(issuer, 'PUT', `/events/${eid}/gates/${gate}`, {
    name: `${gate[0]!.toUpperCase()}${gate.slice(1)} gate`,
    admits: null,
  });
}
const scanners = [];
for (const gate of GATES) {
  const { token } = await admin<{ token: string }>(issuer, 'POST', `/events/${eid}/enrollment-tokens`, {
    gate_id: gate,
  });
  scanners.push({ gate, ...(await enrollWith(issuer, token, gate)) });
}
// Arrivals over the last two hours, busiest at the north gate and towards the start.
for (let i = 0; i < 310; i += 1) {
  const { gate, ...scanner } = scanners[i % 7 < 4 ? 0 : i % 7 < 6 ? 1 : 2]!;
  const minutesAgo = Math.floor(120 * Math.sqrt(Math.random()));
  const scannedAt = new Date(Date.now() - minutesAgo * 60_000).toISOString();
  await scan(issuer, scanner, { tid: tickets[i]!.tid, eid, scanned_at: scannedAt, gate_id: gate });
}
await scan(issuer, scanners[1]!, { tid: tickets[3]!.tid, eid, scanned_at: new Date().toISOString(), gate_id: 'south' });
await admin(issuer, 'POST', `/tickets/${tickets[400]!.tid}/revoke`, { reason: 'refund' });
await scan(issuer, scanners[2]!, {
  tid: tickets[5]!.tid,
  eid,
  scanned_at: new Date(Date.now() - 30 * 60_000).toISOString(),
  gate_id: 'east',
  admitted_offline: true,
});

const browser = await launchBrowser();
const { page } = await openConsole(browser, issuer, { width: 1280 });
await signIn(page);
await page.getByRole('link', { name: 'Harbour Lights Festival' }).click();
await page.locator('.chart canvas').waitFor();
await page.getByLabel('Search tickets').fill('lovelace');
await page.waitForTimeout(2500);
await page.evaluate(() => {
  (document.activeElement as HTMLElement | null)?.blur();
  window.scrollTo(0, 0);
});
await page.screenshot({ path: 'docs/console-event.png', fullPage: false });
await browser.close();
await issuer.close();
process.stdout.write('wrote docs/console-event.png\n');
