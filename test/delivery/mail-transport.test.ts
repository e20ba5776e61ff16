import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TicketMail, ticketMailParts } from '../../src/delivery/mail-message.ts';
import { MailTransport } from '../../src/delivery/mail-transport.ts';
import { readPdf } from '../helpers/pdf-read.ts';
import { decodeWords, leaves, parseMime, TestSmtpServer } from '../helpers/smtp-server.ts';

// An email as the mail source hands it to the transport: the PDF's steps and the message's words. The
// transport's thread draws the PDF, builds the MIME message around it and sends it.
const message = (to = 'ana@example.org', font = 'Helvetica'): TicketMail => ({
  title: 'A ticket',
  steps: [{ text: 'A ticket', font, size: 12, gap: 0 }],
  parts: ticketMailParts({
    to,
    from: 'Box Office <tickets@example.org>',
    eventName: 'Summer <Fest> & Friends',
    holderName: 'Ana "Ñ" <b>López</b>',
    holderUrl: 'https://issuer.test/t/abc?x=1&y=<2>',
  }),
});
/** A start-by time well ahead: the email is sent as soon as it is built. */
const soon = () => Date.now() + 60_000;

describe('sending one ticket email through a real SMTP server', () => {
  let server: TestSmtpServer;
  let transport: MailTransport;
  const LOGIN = { user: 'issuer@example.org', password: 'p@ss:word/with%chars' };
  before(async () => {
    server = await TestSmtpServer.start(LOGIN);
    transport = new MailTransport({ smtpUrl: server.url, sendTimeoutMs: 3000 });
  });
  after(async () => {
    await transport?.close();
    await server?.close();
  });

  it('sends To, From, a Subject with the event, text and HTML parts (escaped) and the PDF attached, logging in', async () => {
    assert.deepEqual(await transport.send(message(), soon()), { kind: 'sent' });
    const got = server.received.at(-1)!;
    assert.deepEqual(got.to, ['ana@example.org']);
    assert.equal(got.from, 'tickets@example.org');
    const mime = parseMime(got.raw);
    assert.equal(mime.headers.get('to'), 'ana@example.org');
    assert.match(mime.headers.get('from')!, /^Box Office <tickets@example\.org>$/);
    assert.equal(decodeWords(mime.headers.get('subject')!), 'Your ticket for Summer <Fest> & Friends');
    const parts = leaves(mime);
    const text = parts.find((p) => p.headers.get('content-type')?.startsWith('text/plain'))!.body.toString('utf8');
    assert.match(text, /Hello Ana "Ñ" <b>López<\/b>,/);
    assert.ok(text.includes('https://issuer.test/t/abc?x=1&y=<2>'));
    const html = parts.find((p) => p.headers.get('content-type')?.startsWith('text/html'))!.body.toString('utf8');
    assert.ok(html.includes('Ana &quot;Ñ&quot; &lt;b&gt;López&lt;/b&gt;'), html);
    assert.ok(html.includes('href="https://issuer.test/t/abc?x=1&amp;y=&lt;2&gt;"'), html);
    assert.ok(!html.includes('<b>'));
    const pdf = parts.find((p) => p.headers.get('content-type')?.startsWith('application/pdf'))!;
    assert.match(pdf.headers.get('content-disposition')!, /attachment; filename=ticket\.pdf/);
    assert.ok(pdf.body.subarray(0, 4).equals(Buffer.from('%PDF')));
    assert.equal(readPdf(pdf.body).text, 'A ticket');
  });

  it('a 451 is temporary, a 550 permanent, each with the server reply; a closed port is temporary', async () => {
    server.answer = () => ({ code: 451, message: '4.3.0 mailbox busy, try later' });
    const busy = (await transport.send(message(), soon()))!;
    assert.equal(busy.kind, 'temporary');
    assert.match((busy as { error: string }).error, /451.*mailbox busy/);
    server.answer = () => ({ code: 550, message: '5.1.1 no such user here' });
    const refused = (await transport.send(message('nobody@example.org'), soon()))!;
    assert.equal(refused.kind, 'permanent');
    assert.match((refused as { error: string }).error, /550.*no such user here/);
    server.answer = () => 'accept';
    await server.down();
    const down = new MailTransport({ smtpUrl: server.url, sendTimeoutMs: 3000 });
    const outcome = (await down.send(message(), soon()))!;
    await down.close();
    assert.equal(outcome.kind, 'temporary');
    assert.match((outcome as { error: string }).error, /ECONNREFUSED/);
    assert.ok(!(outcome as { error: string }).error.includes(LOGIN.password));
    await server.up();
  });

  it('a server that never answers costs at most the send timeout, as a temporary failure', async () => {
    server.delayMs = 10_000;
    const slow = new MailTransport({ smtpUrl: server.url, sendTimeoutMs: 500 });
    const started = Date.now();
    const outcome = (await slow.send(message(), soon()))!;
    await slow.close();
    server.delayMs = 0;
    assert.equal(outcome.kind, 'temporary');
    assert.match((outcome as { error: string }).error, /no answer within 0.5 s/);
    // The send timeout, besides starting the transport's thread and drawing the email: far below the server's 10 s.
    assert.ok(Date.now() - started < 5000);
  });

  it('a wrong password is temporary (the settings, not the message) and its error holds no password', async () => {
    const wrong = new MailTransport({ smtpUrl: server.url.replace('p%40ss', 'wrong'), sendTimeoutMs: 3000 });
    const outcome = (await wrong.send(message(), soon()))!;
    await wrong.close();
    assert.equal(outcome.kind, 'temporary');
    assert.match((outcome as { error: string }).error, /535|auth/i);
    assert.ok(!(outcome as { error: string }).error.includes('wrong:word'));
  });

  it('an email built after its start-by time is not sent (null: left for a later claim), and nothing reaches the server', async () => {
    const before = server.answered;
    assert.equal(await transport.send(message('late@example.org'), Date.now() - 1), null);
    assert.deepEqual(await transport.send(message(), soon()), { kind: 'sent' });
    assert.equal(server.answered, before + 1, 'only the second email reached the server');
    assert.equal(server.received.filter((m) => m.to.includes('late@example.org')).length, 0);
  });

  it('an email that cannot be built is an error (nothing sent), and the thread goes on sending', async () => {
    const before = server.answered;
    await assert.rejects(
      transport.send(message('unbuilt@example.org', '/no/such/font.ttf'), soon()),
      /could not be built/,
    );
    assert.equal(server.answered, before);
    assert.deepEqual(await transport.send(message(), soon()), { kind: 'sent' });
  });

  it('several emails are sent at once, each answered by its own outcome', async () => {
    server.answerFor = (to) =>
      to.includes('refused@example.org') ? { code: 550, message: '5.1.1 unknown' } : 'accept';
    try {
      const outcomes = await Promise.all(
        ['one@example.org', 'refused@example.org', 'two@example.org'].map((to) => transport.send(message(to), soon())),
      );
      assert.deepEqual(
        outcomes.map((o) => o?.kind),
        ['sent', 'permanent', 'sent'],
      );
    } finally {
      server.answerFor = null;
    }
  });
});
