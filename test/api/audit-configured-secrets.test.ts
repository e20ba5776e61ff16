import assert from 'node:assert/strict';
import { ADMIN_TOKEN, adminCall } from '../helpers/app.ts';
import { allAudit } from '../helpers/audit.ts';
import { eachBackend } from '../helpers/backends.ts';
import { ssoEnv } from '../helpers/sso.ts';

/** A client secret as a provider may issue it: with characters that percent-encoding and JSON change. */
const CLIENT_SECRET = 'oidc/client+secret="9f3a"&more';
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

// A provider on loopback that is never asked: the client secret only has to be configured.
const env = { ...ssoEnv('http://127.0.0.1:9'), OIDC_CLIENT_SECRET: CLIENT_SECRET, METRICS_TOKEN };

await eachBackend(
  'audit details mask every configured secret',
  ({ it, issuer }) => {
    it('OIDC_CLIENT_SECRET pasted into free text, raw, percent-encoded or inside a word, is recorded masked', async () => {
      const app = issuer().app;
      // Someone pastes the provider's client secret where free text goes, to find it later in the trail.
      const encoded = encodeURIComponent(CLIENT_SECRET);
      const { eid } = await adminCall<{ eid: string }>(app, 'POST', '/admin/v1/events', {
        name: `Leak ${CLIENT_SECRET}`,
        event_date: '2026-06-02T18:00:00Z',
      });
      const { tid } = await adminCall<{ tid: string }>(app, 'POST', `/admin/v1/events/${eid}/tickets`, {
        holder_name: `x${CLIENT_SECRET}x`,
        ticket_type: 'GA',
        checkin_text: `see ${encoded} and ${METRICS_TOKEN}`,
      });
      await adminCall(app, 'POST', `/admin/v1/tickets/${tid}/revoke`, { reason: CLIENT_SECRET }, 200);
      const entries = await allAudit(app);
      const text = JSON.stringify(entries);
      assert.notEqual(encoded, CLIENT_SECRET);
      for (const secret of [
        CLIENT_SECRET,
        encoded,
        JSON.stringify(CLIENT_SECRET).slice(1, -1),
        METRICS_TOKEN,
        ADMIN_TOKEN,
      ]) {
        assert.ok(!text.includes(secret), `an entry holds ${secret.slice(0, 8)}…`);
      }
      const of = (action: string) => entries.find((e) => e.action === action)!;
      assert.equal(of('event.create').details.name, 'Leak [redacted]');
      assert.equal(of('ticket.create').details.holder_name, 'x[redacted]x');
      assert.equal(of('ticket.create').details.checkin_text, 'see [redacted] and [redacted]');
      assert.equal(of('ticket.revoke').details.reason, '[redacted]');
      // The answers themselves are the caller's own and keep what was sent.
      const ticket = await adminCall<{ holder_name: string }>(app, 'GET', `/admin/v1/tickets/${tid}`);
      assert.equal(ticket.holder_name, `x${CLIENT_SECRET}x`);
    });
  },
  { env },
);
