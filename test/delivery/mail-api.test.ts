import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_TOKEN, adminCall, testIssuer } from '../helpers/app.ts';
import { allAudit } from '../helpers/audit.ts';
import { eachBackend } from '../helpers/backends.ts';
import { readPdf } from '../helpers/pdf-read.ts';
import { personWithRole } from '../helpers/people.ts';
import { decodeSquares } from '../helpers/qr-decode.ts';
import { decodeWords, leaves, parseMime, TestSmtpServer } from '../helpers/smtp-server.ts';

/**
 * CONTRACT.md, "Tickets reach their holders", the Mail bullet: POST /admin/v1/events/{eid}/deliveries
 * queues one email per ticket with an email, sent through the outbox to a real SMTP server; 4xx and a
 * server that is down are retried after MAIL_RETRY_SCHEDULE_S, a 5xx fails with the server's reply.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

// Shared by both backends' suites; it does not keep the process alive (see TestSmtpServer.up).
const smtp = await TestSmtpServer.start();
let serial = 0;
const address = (name: string) => `${name}.${process.pid}.${++serial}@example.org`;

describe('without SMTP_URL', () => {
  it('sending answers 409 CONFLICT mail_not_configured', async () => {
    const issuer = await testIssuer();
    try {
      const { eid } = await adminCall<{ eid: string }>(issuer.app, 'POST', '/admin/v1/events', {
        name: 'No Mail Fest',
        event_date: '2026-06-05T10:00:00Z',
      });
      const res = await issuer.app.inject({
        method: 'POST',
        url: `/admin/v1/events/${eid}/deliveries`,
        headers: admin,
        payload: { tids: null },
      });
      assert.equal(res.statusCode, 409);
      assert.equal(res.json().error.code, 'CONFLICT');
      assert.equal(res.json().error.details.reason, 'mail_not_configured');
    } finally {
      await issuer.close();
    }
  });
});

await eachBackend(
  'ticket emails through a real SMTP server',
  ({ it, issuer }) => {
    const app = () => issuer().app;
    const call = async (method: 'GET' | 'POST', url: string, payload?: unknown, headers = admin) => {
      const res = await app().inject({
        method,
        url,
        headers,
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
      return { status: res.statusCode, body: res.body === '' ? null : (res.json() as Json) };
    };
    const event = async (name = 'Summer <Fest> & Friends') =>
      (
        await adminCall<{ eid: string }>(app(), 'POST', '/admin/v1/events', {
          name,
          event_date: '2026-06-05T10:00:00Z',
        })
      ).eid;
    const ticket = (eid: string, holder_name: string, email: string | null) =>
      adminCall<Json>(app(), 'POST', `/admin/v1/events/${eid}/tickets`, {
        holder_name,
        ticket_type: 'GA',
        ...(email === null ? {} : { email }),
      });
    const send = (eid: string, body: unknown) => call('POST', `/admin/v1/events/${eid}/deliveries`, body);
    const list = async (eid: string, query = '') =>
      (await call('GET', `/admin/v1/events/${eid}/deliveries${query}`)).body!.deliveries as Json[];
    /** The event's deliveries once `done` holds, the clock moved on a little each look (retries come due). */
    const listWhen = async (eid: string, done: (d: Json[]) => boolean) => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const items = await list(eid);
        if (done(items)) return items;
        if (Date.now() > deadline) throw new Error(`deliveries: ${JSON.stringify(items)}`);
        issuer().clock.advance(200);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const receivedBy = (email: string) => smtp.received.filter((m) => m.to.includes(email));

    it('queues one email per ticket with an email; each arrives with To, From, Subject, text, HTML and the PDF', async () => {
      const eid = await event();
      const ana = address('ana');
      const bo = address('bo');
      const a = await ticket(eid, 'Ana "Ñ" <b>López</b>', ana);
      const b = await ticket(eid, 'Bo', bo);
      await ticket(eid, 'No Mail', null);
      const queued = await send(eid, { tids: null, resend: false });
      assert.equal(queued.status, 202, JSON.stringify(queued.body));
      assert.deepEqual(queued.body, { queued: 2 });
      const sent = await listWhen(eid, (d) => d.length === 2 && d.every((x) => x.status === 'sent'));
      assert.deepEqual(
        sent.map((x) => x.tid),
        [a.tid, b.tid].sort(),
      );
      for (const x of sent) {
        assert.equal(x.attempts, 1);
        assert.equal(x.last_error, null);
        assert.match(x.sent_at, /^\d{4}-\d\d-\d\dT/);
      }
      assert.equal(receivedBy(ana).length, 1);
      const mime = parseMime(receivedBy(ana)[0]!.raw);
      assert.equal(mime.headers.get('to'), ana);
      assert.equal(mime.headers.get('from'), 'Box Office <tickets@example.org>');
      assert.match(decodeWords(mime.headers.get('subject')!), /Summer <Fest> & Friends/);
      const parts = leaves(mime);
      const part = (type: string) => parts.find((p) => p.headers.get('content-type')?.startsWith(type));
      const text = part('text/plain')!.body.toString('utf8');
      assert.ok(text.includes('Ana "Ñ" <b>López</b>'), text);
      assert.ok(text.includes(a.holder_url), text);
      const html = part('text/html')!.body.toString('utf8');
      assert.ok(html.includes('Ana &quot;Ñ&quot; &lt;b&gt;López&lt;/b&gt;'), html);
      assert.ok(html.includes(`href="${a.holder_url}"`), html);
      const pdf = part('application/pdf')!;
      assert.match(pdf.headers.get('content-disposition')!, /filename=ticket\.pdf/);
      assert.equal(pdf.body.subarray(0, 5).toString('latin1'), '%PDF-');
      // The attachment is the ticket's page: its words, and a QR code that decodes to the ticket token.
      const page = readPdf(pdf.body);
      assert.equal(page.pages, 1);
      assert.ok(page.text.includes('Summer <Fest> & Friends'), page.text);
      assert.ok(page.text.includes('Valid'), page.text);
      assert.deepEqual(await decodeSquares(page.squares), [a.ticket_token]);
      // Sent ones are not sent again unless asked; resend sends them again.
      assert.deepEqual((await send(eid, { tids: null })).body, { queued: 0 });
      assert.deepEqual((await send(eid, { tids: [a.tid], resend: true })).body, { queued: 1 });
      await listWhen(eid, (d) => d.every((x) => x.status === 'sent'));
      assert.equal(receivedBy(ana).length, 2);
      assert.equal(receivedBy(bo).length, 1);
      // The ticket answers carry the delivery.
      const read = await adminCall<Json>(app(), 'GET', `/admin/v1/tickets/${a.tid}`);
      assert.equal(read.delivery.status, 'sent');
      assert.match(read.delivery.sent_at, /^\d{4}-/);
      const none = (await adminCall<Json>(app(), 'GET', `/admin/v1/events/${eid}/tickets`)).tickets as Json[];
      assert.equal(none.find((t) => t.holder_name === 'No Mail')!.delivery, null);
    });

    it('a 451 is retried after the schedule and then sent; a 550 fails with the server reply', async () => {
      const eid = await event('Retry Fest');
      const later = address('later');
      const never = address('never');
      const t1 = await ticket(eid, 'Later', later);
      const t2 = await ticket(eid, 'Never', never);
      let busyOnce = true;
      smtp.answerFor = (to) => {
        if (to.includes(never)) return { code: 550, message: '5.1.1 mailbox unavailable' };
        if (to.includes(later) && busyOnce) {
          busyOnce = false;
          return { code: 451, message: '4.3.0 greylisted, try again later' };
        }
        return 'accept';
      };
      assert.deepEqual((await send(eid, { tids: [t1.tid, t2.tid] })).body, { queued: 2 });
      const retried = await listWhen(
        eid,
        (d) => d.find((x) => x.tid === t1.tid)?.attempts >= 1 && d.find((x) => x.tid === t2.tid)?.status === 'failed',
      );
      const failed = retried.find((x) => x.tid === t2.tid)!;
      assert.match(failed.last_error, /550.*mailbox unavailable/);
      const done = await listWhen(eid, (d) => d.find((x) => x.tid === t1.tid)?.status === 'sent');
      const sent = done.find((x) => x.tid === t1.tid)!;
      assert.equal(sent.attempts, 2);
      assert.equal(receivedBy(later).length, 1);
      assert.equal(receivedBy(never).length, 0);
      assert.deepEqual(
        (await list(eid, '?status=failed')).map((x) => x.tid),
        [t2.tid],
      );
      smtp.answerFor = null;
    });

    it('a server that is down (connection refused) is retried until it is back', async () => {
      const eid = await event('Down Fest');
      const patient = address('patient');
      const t = await ticket(eid, 'Patient', patient);
      await smtp.down();
      try {
        assert.deepEqual((await send(eid, { tids: null })).body, { queued: 1 });
        const waiting = await listWhen(eid, (d) => d[0]?.attempts >= 1);
        assert.equal(waiting[0]!.status, 'queued');
        assert.match(waiting[0]!.last_error, /ECONNREFUSED/);
      } finally {
        await smtp.up();
      }
      await listWhen(eid, (d) => d[0]?.status === 'sent');
      assert.equal(receivedBy(patient).length, 1);
      assert.equal(t.email, patient);
    });

    it('unknown tids answer 404 naming them; bad bodies 400; a viewer may list but not send; sending is audited', async () => {
      const eid = await event('Checks Fest');
      const t = await ticket(eid, 'Checked', address('checked'));
      const other = await ticket(await event('Other Fest'), 'Elsewhere', address('elsewhere'));
      const unknown = await send(eid, { tids: [t.tid, other.tid] });
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body!.error.details.tids, [other.tid]);
      assert.equal((await send('evt_01JZZZZZZZZZZZZZZZZZZZZZZZ', { tids: null })).status, 404);
      for (const bad of [{}, { tids: [] }, { tids: 'all' }, { tids: null, resend: 'yes' }, { tids: null, extra: 1 }]) {
        assert.equal((await send(eid, bad)).status, 400, JSON.stringify(bad));
      }
      assert.equal((await call('GET', `/admin/v1/events/${eid}/deliveries?status=lost`)).status, 400);
      assert.equal((await call('GET', `/admin/v1/events/${eid}/deliveries?cursor=nope`)).status, 400);
      const viewer = await personWithRole(app(), 'viewer', [eid]);
      const refused = await call('POST', `/admin/v1/events/${eid}/deliveries`, { tids: null }, viewer.headers);
      assert.equal(refused.status, 403);
      assert.equal((await call('GET', `/admin/v1/events/${eid}/deliveries`, undefined, viewer.headers)).status, 200);
      const supervisor = await personWithRole(app(), 'supervisor', [eid]);
      const bySupervisor = await call(
        'POST',
        `/admin/v1/events/${eid}/deliveries`,
        { tids: [t.tid] },
        supervisor.headers,
      );
      assert.equal(bySupervisor.status, 202);
      const entry = (await allAudit(app())).find((e) => e.action === 'delivery.send' && e.eid === eid)!;
      assert.ok(entry, 'an audit entry for the sending');
      assert.deepEqual(entry.details, { count: 1 });
      await listWhen(eid, (d) => d[0]?.status === 'sent');
    });
  },
  {
    env: {
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Box Office <tickets@example.org>',
      MAIL_RETRY_SCHEDULE_S: '1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1',
    },
  },
);
