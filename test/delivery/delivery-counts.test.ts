import assert from 'node:assert/strict';
import { ADMIN_TOKEN, adminCall } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';
import { TestSmtpServer } from '../helpers/smtp-server.ts';

/**
 * The console's Send tickets control reads its numbers from GET …/deliveries: `counts` (with an email,
 * queued, sent, failed) cover the whole event whatever page or status is asked, so an event of tens of
 * thousands of tickets is counted without listing them; ticket answers carry why an email failed.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const smtp = await TestSmtpServer.start();
let serial = 0;
const address = (name: string) => `${name}.${process.pid}.${++serial}@example.org`;

await eachBackend(
  'delivery counts',
  ({ it, issuer }) => {
    const app = () => issuer().app;
    const get = async (url: string) => {
      const res = await app().inject({ method: 'GET', url, headers: admin });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as Json;
    };

    it('the list carries the event counts; a failed email shows its reply in the ticket answer', async () => {
      const { eid } = await adminCall<{ eid: string }>(app(), 'POST', '/admin/v1/events', {
        name: 'Counted Fest',
        event_date: '2026-06-05T10:00:00Z',
      });
      const ticket = (holder_name: string, email?: string) =>
        adminCall<Json>(app(), 'POST', `/admin/v1/events/${eid}/tickets`, {
          holder_name,
          ticket_type: 'GA',
          ...(email ? { email } : {}),
        });
      const refused = address('refused');
      const a = await ticket('Ana', address('ana'));
      const b = await ticket('Bo', refused);
      await ticket('Cy', address('cy'));
      await ticket('No Mail');
      const before = await get(`/admin/v1/events/${eid}/deliveries`);
      assert.deepEqual(before.counts, { with_email: 3, queued: 0, sent: 0, failed: 0 });
      assert.deepEqual(before.deliveries, []);

      smtp.answerFor = (to) => (to.includes(refused) ? { code: 550, message: '5.1.1 no such mailbox' } : 'accept');
      try {
        const queued = await app().inject({
          method: 'POST',
          url: `/admin/v1/events/${eid}/deliveries`,
          headers: admin,
          payload: { tids: [a.tid, b.tid] },
        });
        assert.deepEqual(queued.json(), { queued: 2 });
        const deadline = Date.now() + 15_000;
        let answer = await get(`/admin/v1/events/${eid}/deliveries?status=sent&limit=1`);
        while (answer.counts.queued > 0 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          answer = await get(`/admin/v1/events/${eid}/deliveries?status=sent&limit=1`);
        }
        // The counts are the event's, not the page's nor the status's.
        assert.deepEqual(answer.counts, { with_email: 3, queued: 0, sent: 1, failed: 1 });
        assert.deepEqual(
          answer.deliveries.map((d: Json) => d.tid),
          [a.tid],
        );
      } finally {
        smtp.answerFor = null;
      }
      const failed = await get(`/admin/v1/tickets/${b.tid}`);
      assert.equal(failed.delivery.status, 'failed');
      assert.match(failed.delivery.last_error, /550.*no such mailbox/);
      assert.equal((await get(`/admin/v1/tickets/${a.tid}`)).delivery.last_error, null);
    });
  },
  { env: { SMTP_URL: smtp.url, MAIL_FROM: 'Box Office <tickets@example.org>' } },
);
