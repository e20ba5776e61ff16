import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { adminCall } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';
import { decodeSquares, svgSquares } from '../helpers/qr-decode.ts';

/**
 * The holder page's QR code is made on the holders' PDF threads, not on the event loop: when every
 * thread is busy a page is answered 503 with `Retry-After` (an HTML page that loads itself again, never
 * JSON, never a 500), and a page whose QR code was made is served again without a thread (its QR code
 * kept by the token it carries), so a holder reloading at the doors is not refused.
 */

interface Ticket {
  tid: string;
  ticket_token: string;
  holder_url: string;
}

const svgOf = (html: string) => /<svg[\s\S]*?<\/svg>/.exec(html)?.[0] ?? null;
/** More pages at once than any machine here has PDF threads. */
const CROWD = availableParallelism() + 8;

await eachBackend('the holder page under a crowd', ({ it, issuer }) => {
  const app = () => issuer().app;
  let eid: string;
  const issue = (holder_name: string) =>
    adminCall<Ticket>(app(), 'POST', `/admin/v1/events/${eid}/tickets`, { holder_name, ticket_type: 'GA' });
  const page = (ticket: Ticket) => app().inject({ url: new URL(ticket.holder_url).pathname });
  /** `CROWD` tickets never shown before. */
  const crowd = (round: number) => Promise.all(Array.from({ length: CROWD }, (_, i) => issue(`Guest ${round}.${i}`)));

  it('sets up an event', async () => {
    ({ eid } = await adminCall<{ eid: string }>(app(), 'POST', '/admin/v1/events', {
      name: 'Crowd Fest',
      event_date: '2026-06-05T16:00:00Z',
    }));
  });

  it('pages asked for at once are shown or answered 503 with Retry-After and a page that reloads itself', async () => {
    const tickets = await crowd(0);
    const answers = await Promise.all(tickets.map(page));
    const statuses = answers.map((res) => res.statusCode);
    assert.ok(statuses.includes(200), String(statuses));
    assert.ok(statuses.includes(503), `more pages at once than threads: ${statuses}`);
    for (const [i, res] of answers.entries()) {
      if (res.statusCode === 200) {
        assert.deepEqual(await decodeSquares(svgSquares(svgOf(res.body)!)), [tickets[i]!.ticket_token]);
        continue;
      }
      assert.equal(res.statusCode, 503, res.body);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.ok(Number(res.headers['retry-after']) >= 1);
      assert.match(res.body, /<meta http-equiv="refresh" content="\d+">/);
      assert.match(res.body, /One moment/);
      assert.match(String(res.headers['x-robots-tag']), /noindex/);
      assert.match(String(res.headers['content-security-policy']), /default-src 'none'/);
      assert.equal(res.body.includes(tickets[i]!.ticket_token), false);
    }
    // Refused once is not refused for good: asked again one at a time, every page is shown.
    for (const [i, ticket] of tickets.entries()) {
      const again = await page(ticket);
      assert.equal(again.statusCode, 200, `${i}: ${again.body}`);
      assert.ok(again.body.includes(ticket.ticket_token));
    }
  });

  it('a page shown before is shown again while a crowd keeps every thread busy', async () => {
    const shown = await issue('Reloading');
    const first = await page(shown);
    assert.equal(first.statusCode, 200);
    let refusedOthers = 0;
    for (let round = 1; round <= 3; round++) {
      const others = await crowd(round);
      // The reload goes last, behind a crowd of pages that each need a thread.
      const answers = await Promise.all([...others.map(page), page(shown)]);
      refusedOthers += answers.slice(0, -1).filter((res) => res.statusCode === 503).length;
      const reload = answers.at(-1)!;
      assert.equal(reload.statusCode, 200, `round ${round}: ${reload.body.slice(0, 200)}`);
      assert.equal(svgOf(reload.body), svgOf(first.body));
    }
    assert.ok(refusedOthers > 0, 'the crowd did find every thread busy');
  });

  it('a reissued ticket’s page shows its new token’s QR code, not the one kept for the old token', async () => {
    const ticket = await issue('Reissued');
    assert.equal((await page(ticket)).statusCode, 200);
    const again = await adminCall<Ticket>(app(), 'POST', `/admin/v1/tickets/${ticket.tid}/reissue`, {}, 200);
    const res = await page(ticket);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(await decodeSquares(svgSquares(svgOf(res.body)!)), [again.ticket_token]);
  });
});
