import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ADMIN_TOKEN, adminCall } from '../helpers/app.ts';
import { allAudit, eachAuditBackend } from '../helpers/audit.ts';

await eachAuditBackend('Secrets and the audit trail', ({ backend, it, issuer, sql }) => {
  it(`${backend}: no secret reaches an entry, neither in the answers nor in the table`, async () => {
    const app = issuer().app;
    const { eid } = await adminCall<{ eid: string }>(app, 'POST', '/admin/v1/events', {
      name: 'Secrets',
      event_date: '2026-06-02T18:00:00Z',
    });
    const setup = await adminCall<{ token: string; token_id: string }>(
      app,
      'POST',
      `/admin/v1/events/${eid}/enrollment-tokens`,
      {},
    );
    const enrolled = await app.inject({
      method: 'POST',
      url: '/api/v1/scanners/enroll',
      payload: { token: setup.token, scanner_id: randomUUID(), scanner_name: 'Gate', scanner_platform: 'iOS' },
    });
    const apiKey = enrolled.json().api_key as string;
    const hook = await adminCall<{ webhook_id: string; secret: string }>(app, 'POST', '/admin/v1/webhooks', {
      url: 'http://127.0.0.1:9/hook?token=query-secret-0123456789',
      event_types: ['*'],
    });
    const rotated = await adminCall<{ secret: string }>(
      app,
      'POST',
      `/admin/v1/webhooks/${hook.webhook_id}/rotate-secret`,
      {},
      200,
    );
    const secrets = [ADMIN_TOKEN, setup.token, apiKey, hook.secret, rotated.secret, 'query-secret-0123456789'];
    assert.ok(setup.token.startsWith('st_') && apiKey.startsWith('sk_live_') && hook.secret.startsWith('whsec_'));
    // Secrets pasted where free text goes are masked as the logs mask them.
    const { tid } = await adminCall<{ tid: string }>(app, 'POST', `/admin/v1/events/${eid}/tickets`, {
      holder_name: `Holder ${apiKey}`,
      ticket_type: 'GA',
      checkin_text: `see ${hook.secret}`,
    });
    await adminCall(
      app,
      'POST',
      `/admin/v1/tickets/${tid}/revoke`,
      { reason: `leaked ${ADMIN_TOKEN} and ${setup.token}` },
      200,
    );
    await adminCall(
      app,
      'PATCH',
      `/admin/v1/webhooks/${hook.webhook_id}`,
      { description: `was ${rotated.secret}` },
      200,
    );

    const entries = await allAudit(app);
    assert.ok(entries.length >= 7, `entries: ${entries.length}`);
    const answered = JSON.stringify(entries);
    const stored = JSON.stringify(await sql('SELECT * FROM audit_log', 'rows'));
    for (const secret of secrets) {
      assert.ok(!answered.includes(secret), `an answered entry holds ${secret.slice(0, 8)}…`);
      assert.ok(!stored.includes(secret), `a stored entry holds ${secret.slice(0, 8)}…`);
    }
    const revoke = entries.find((e) => e.action === 'ticket.revoke')!;
    assert.equal(revoke.details.reason, 'leaked [redacted] and [redacted]');
  });

  it(`${backend}: free text with a quote after a query's code or state is recorded masked, never a 500`, async () => {
    const app = issuer().app;
    // Masking the entry's JSON text cut `\"` in two here and left text that JSON.parse refused.
    const made = await app.inject({
      method: 'POST',
      url: '/admin/v1/events',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { name: 'See ?state=a"b', event_date: '2026-06-02T18:00:00Z' },
    });
    assert.equal(made.statusCode, 201, made.body);
    const { eid } = made.json() as { eid: string };
    const { tid } = await adminCall<{ tid: string }>(app, 'POST', `/admin/v1/events/${eid}/tickets`, {
      holder_name: 'A ?code=" B',
      ticket_type: 'GA',
    });
    await adminCall(app, 'POST', `/admin/v1/tickets/${tid}/revoke`, { reason: 'lost, see &code=1"2' }, 200);
    const entries = await allAudit(app);
    const of = (action: string) => entries.find((e) => e.action === action && (e.eid === eid || e.target === eid))!;
    assert.equal(of('event.create').details.name, 'See ?state=[redacted]"b');
    assert.equal(of('ticket.create').details.holder_name, 'A ?code=" B');
    assert.equal(of('ticket.revoke').details.reason, 'lost, see &code=[redacted]"2');
  });
});
