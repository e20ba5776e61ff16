import assert from 'node:assert/strict';
import { ADMIN_TOKEN, adminCall } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';
import { readPdf } from '../helpers/pdf-read.ts';
import { decodeSquares } from '../helpers/qr-decode.ts';

/**
 * CONTRACT.md, "Tickets reach their holders": **Download PDF** (`/t/<holder_token>/ticket.pdf`) is one
 * page with the same QR code and words as the holder page. Read back from outside: the page count,
 * the text through each font's Unicode map, and the QR code decoded by ZXing from the drawn squares.
 */

interface Ticket {
  tid: string;
  ticket_token: string;
  holder_url: string;
}

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

await eachBackend('the ticket PDF', ({ it, issuer }) => {
  const app = () => issuer().app;
  let eid: string;
  const issue = (ticket: Record<string, unknown>) =>
    adminCall<Ticket>(app(), 'POST', `/admin/v1/events/${eid}/tickets`, ticket);
  const pdfOf = (ticket: Ticket) => app().inject({ url: `${new URL(ticket.holder_url).pathname}/ticket.pdf` });

  it('sets up an event in Warsaw with a type for the evenings', async () => {
    ({ eid } = await adminCall<{ eid: string }>(app(), 'POST', '/admin/v1/events', {
      name: 'Jazz nad Wisłą',
      event_date: '2026-07-10T16:00:00Z',
      ends_at: '2026-07-12T21:00:00Z',
      timezone: 'Europe/Warsaw',
    }));
    await adminCall(
      app(),
      'PUT',
      `/admin/v1/events/${eid}/ticket-types/Evening`,
      { hours: { from: '18:00', until: '23:30' } },
      200,
    );
  });

  it('is one A4 page with the event, date, holder (Latin with diacritics), type, days and hours, Valid and the QR code', async () => {
    const ticket = await issue({ holder_name: 'Łukasz Żółć', ticket_type: 'Evening' });
    const res = await pdfOf(ticket);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'application/pdf');
    assert.match(
      String(res.headers['content-disposition']),
      new RegExp(`^attachment; filename="ticket-jazz-nad-wisla-${ticket.tid}\\.pdf"$`),
    );
    assert.match(String(res.headers['cache-control']), /no-store/);
    assert.equal(res.rawPayload.subarray(0, 5).toString('latin1'), '%PDF-');
    const pdf = readPdf(res.rawPayload);
    assert.equal(pdf.pages, 1);
    for (const words of [
      'Jazz nad Wisłą',
      'Fri 10 Jul 2026, 18:00',
      'Europe/Warsaw',
      'Łukasz Żółć',
      'Evening',
      'Valid on every day from Fri 10 Jul 2026 to Sun 12 Jul 2026',
      'Entry from 18:00 to 23:30',
      'Valid',
    ]) {
      assert.ok(pdf.text.includes(words), `${words} in: ${pdf.text}`);
    }
    assert.ok(pdf.text.replace(/\n/g, '').includes(ticket.ticket_token), 'the token as text');
    assert.deepEqual(await decodeSquares(pdf.squares), [ticket.ticket_token]);
  });

  it('long names and types still fit one page', async () => {
    const ticket = await issue({ holder_name: 'Ő'.repeat(200), ticket_type: 'Ä'.repeat(100) });
    const pdf = readPdf((await pdfOf(ticket)).rawPayload);
    assert.equal(pdf.pages, 1);
    assert.deepEqual(await decodeSquares(pdf.squares), [ticket.ticket_token]);
  });

  it('a reissued ticket’s PDF carries the new token; a revoked one says Revoked and has no QR code', async () => {
    const ticket = await issue({ holder_name: 'Ada', ticket_type: 'GA' });
    const again = await adminCall<Ticket>(app(), 'POST', `/admin/v1/tickets/${ticket.tid}/reissue`, {}, 200);
    assert.deepEqual(await decodeSquares(readPdf((await pdfOf(ticket)).rawPayload).squares), [again.ticket_token]);
    await app().inject({ method: 'POST', url: `/admin/v1/tickets/${ticket.tid}/revoke`, headers: admin, payload: {} });
    const revoked = readPdf((await pdfOf(ticket)).rawPayload);
    assert.equal(revoked.pages, 1);
    assert.ok(revoked.text.includes('Revoked'), revoked.text);
    assert.equal(revoked.squares.squares.length, 0);
    assert.equal(revoked.text.replace(/\n/g, '').includes(again.ticket_token), false);
  });

  it('an unknown holder token is the 404 page, not a PDF', async () => {
    const res = await app().inject({ url: '/t/AAAAAAAAAAAAAAAAAAAAAA/ticket.pdf' });
    assert.equal(res.statusCode, 404);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(res.body, /No ticket has this link/);
  });

  it('PDFs asked for at once are drawn or refused with 503 and Retry-After, never a 500', async () => {
    const ticket = await issue({ holder_name: 'Busy', ticket_type: 'GA' });
    const answers = await Promise.all(Array.from({ length: 6 }, () => pdfOf(ticket)));
    const statuses = answers.map((res) => res.statusCode);
    assert.ok(statuses.includes(200), String(statuses));
    for (const res of answers.filter((r) => r.statusCode !== 200)) {
      assert.equal(res.statusCode, 503, res.body);
      assert.equal(res.json().error.code, 'UNAVAILABLE');
      assert.ok(Number(res.headers['retry-after']) >= 1);
    }
  });
});
