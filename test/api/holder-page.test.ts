import assert from 'node:assert/strict';
import { ADMIN_TOKEN, adminCall, checkInBody, enrollScanner, postCheckIn, T0 } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';
import { decodeSquares, svgSquares } from '../helpers/qr-decode.ts';

/**
 * CONTRACT.md, "Tickets reach their holders": the holder page `GET /t/<holder_token>`: no sign-in,
 * noindex, no third-party resources; the event's name and date in its zone, the holder, the type, the
 * valid days and hours in words, the current token as a QR code ("Ticket QR code") and as text, the
 * status in words (Valid, Used <time>, Revoked: no QR code then), Download PDF; an unknown token: a 404 page.
 */

interface Ticket {
  tid: string;
  ticket_token: string;
  holder_url: string;
  short_code: string;
}

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const pathOf = (url: string) => new URL(url).pathname;
const svgOf = (html: string) => /<svg[\s\S]*?<\/svg>/.exec(html)?.[0] ?? null;
/** The page's text as a reader gets it: tags out, entities read. */
const textOf = (html: string) =>
  html
    .replace(/<style>[\s\S]*?<\/style>|<svg[\s\S]*?<\/svg>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');

await eachBackend('the holder page', ({ it, issuer }) => {
  const app = () => issuer().app;
  let eid: string;
  const issue = async (ticket: Record<string, unknown>) =>
    adminCall<Ticket>(app(), 'POST', `/admin/v1/events/${eid}/tickets`, ticket);
  const page = (url: string) => app().inject({ url: pathOf(url) });

  it('sets up a three-day event in Berlin with a Saturday type from 10:00 to 18:00', async () => {
    ({ eid } = await adminCall<{ eid: string }>(app(), 'POST', '/admin/v1/events', {
      name: 'Sommer <Fest> & "Friends"',
      event_date: '2026-06-05T16:00:00Z',
      ends_at: '2026-06-07T21:00:00Z',
      timezone: 'Europe/Berlin',
    }));
    await adminCall(
      app(),
      'PUT',
      `/admin/v1/events/${eid}/ticket-types/Saturday`,
      {
        valid_days: ['2026-06-06'],
        hours: { from: '10:00', until: '18:00' },
      },
      200,
    );
  });

  it('shows the event, date in its zone, holder, type, days and hours in words, Valid, and the token as QR and text', async () => {
    const ticket = await issue({ holder_name: 'Łukasz Żółć', ticket_type: 'Saturday' });
    const res = await page(ticket.holder_url);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    const text = textOf(res.body);
    for (const words of [
      'Sommer <Fest> & "Friends"',
      'Fri 5 Jun 2026, 18:00', // 16:00Z in Berlin (CEST)
      'Europe/Berlin',
      'Łukasz Żółć',
      'Saturday',
      'Valid on Sat 6 Jun 2026',
      'Entry from 10:00 to 18:00',
      'Valid',
      'Download PDF',
    ]) {
      assert.ok(text.includes(words), `${words} in: ${text}`);
    }
    assert.ok(res.body.includes(ticket.ticket_token), 'the token as text');
    assert.ok(text.includes(`Ticket code: ${ticket.short_code}`), 'the short code under the QR code');
    const svg = svgOf(res.body)!;
    assert.match(svg, /<title[^>]*>Ticket QR code<\/title>/);
    assert.deepEqual(await decodeSquares(svgSquares(svg)), [ticket.ticket_token]);
    assert.match(res.body, /<a href="\/t\/[A-Za-z0-9_-]{22}\/ticket\.pdf">Download PDF<\/a>/);
    assert.equal(/Apple Wallet|Google Wallet/.test(res.body), false, 'no wallet is configured');
  });

  it('escapes what holders and organizers wrote: no markup of theirs reaches the page', async () => {
    const ticket = await issue({
      holder_name: '<script>alert(1)</script><img src=x onerror=alert(2)>',
      ticket_type: 'GA"><b>',
    });
    const res = await page(ticket.holder_url);
    assert.equal(res.body.includes('<script>'), false);
    assert.equal(res.body.includes('<img'), false);
    assert.equal(res.body.includes('<b>'), false);
    assert.ok(res.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.equal(res.body.includes('<Fest>'), false);
  });

  it('answers noindex (meta and header), a strict CSP without third parties, and no shared caching', async () => {
    const ticket = await issue({ holder_name: 'Ada', ticket_type: 'GA' });
    for (const res of [await page(ticket.holder_url), await app().inject({ url: '/t/AAAAAAAAAAAAAAAAAAAAAA' })]) {
      assert.match(String(res.headers['x-robots-tag']), /noindex/);
      assert.match(res.body, /<meta name="robots" content="noindex/);
      assert.match(String(res.headers['cache-control']), /no-store/);
      const csp = String(res.headers['content-security-policy']);
      assert.match(csp, /default-src 'none'/);
      assert.equal(/https?:|\*|'unsafe-inline'|script-src/.test(csp), false, csp);
      assert.equal(res.headers['referrer-policy'], 'no-referrer');
      assert.equal(/(src|href)="(https?:)?\/\//.test(res.body), false, 'nothing from another origin');
    }
  });

  it('a used ticket says "Used" and when, in the event’s zone; a reissued one shows its new token', async () => {
    const ticket = await issue({ holder_name: 'Grace', ticket_type: 'GA' });
    const again = await adminCall<Ticket>(app(), 'POST', `/admin/v1/tickets/${ticket.tid}/reissue`, {}, 200);
    assert.notEqual(again.ticket_token, ticket.ticket_token);
    const reissued = await page(ticket.holder_url);
    assert.ok(reissued.body.includes(again.ticket_token));
    assert.equal(reissued.body.includes(ticket.ticket_token), false);
    assert.deepEqual(await decodeSquares(svgSquares(svgOf(reissued.body)!)), [again.ticket_token]);
    const scannerId = 'gate-a';
    const scanner = await enrollScanner(app(), eid, scannerId);
    const saturday = '2026-06-06T12:00:00.000Z';
    issuer().clock.set(saturday);
    try {
      const body = checkInBody({ ...scanner, eid, tid: ticket.tid, scannerId, ticketToken: '' }, saturday, {
        ticket_token: again.ticket_token,
      });
      const scanned = await postCheckIn(app(), scanner.apiKey, body);
      assert.equal(scanned.json().status, 'valid', scanned.body);
      const used = textOf((await page(ticket.holder_url)).body);
      assert.ok(used.includes('Used Sat 6 Jun 2026, 14:00'), used); // 12:00Z is 14:00 in Berlin
    } finally {
      issuer().clock.set(T0);
    }
  });

  it('a revoked ticket says "Revoked" and shows no QR code and no token', async () => {
    const ticket = await issue({ holder_name: 'Mallory', ticket_type: 'GA' });
    await app().inject({ method: 'POST', url: `/admin/v1/tickets/${ticket.tid}/revoke`, headers: admin, payload: {} });
    const res = await page(ticket.holder_url);
    assert.equal(res.statusCode, 200);
    assert.ok(textOf(res.body).includes('Revoked'));
    assert.equal(svgOf(res.body), null);
    assert.equal(res.body.includes(ticket.ticket_token), false);
  });

  it('an unknown or malformed holder token is a 404 HTML page saying so, never JSON', async () => {
    const ticket = await issue({ holder_name: 'Eve', ticket_type: 'GA' });
    const token = pathOf(ticket.holder_url).slice(3);
    for (const path of [
      '/t/AAAAAAAAAAAAAAAAAAAAAA',
      `/t/${token.slice(0, 21)}`,
      `/t/${ticket.tid}`,
      '/t/%3Cscript%3E',
      `/t/${'x'.repeat(90)}`,
    ]) {
      const res = await app().inject({ url: path });
      assert.equal(res.statusCode, 404, path);
      assert.match(String(res.headers['content-type']), /^text\/html/, path);
      assert.ok(textOf(res.body).includes('No ticket has this link'), path);
      assert.equal(res.body.includes('<script>'), false);
    }
  });

  it('the holder token is not written to the log', async () => {
    const ticket = await issue({ holder_name: 'Logan', ticket_type: 'GA' });
    await page(ticket.holder_url);
    const token = pathOf(ticket.holder_url).slice(3);
    assert.equal(issuer().logs.text.includes(token), false);
    assert.match(issuer().logs.text, /\/t\/\[redacted\]/);
  });
});
