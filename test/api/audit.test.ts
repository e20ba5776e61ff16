import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { postCheckIn, T0 } from '../helpers/app.ts';
import { type AuditEntry, call, eachAuditBackend, type Json, recordsNone, recordsOne } from '../helpers/audit.ts';

await eachAuditBackend('Audit trail', ({ backend, it, issuer }) => {
  it(`${backend}: each kind of admin write records exactly one entry naming the actor, action, target and event`, async () => {
    const app = issuer().app;
    const event = await recordsOne(
      app,
      () => call(app, 'POST', '/admin/v1/events', { name: 'Audit Fest', event_date: '2026-06-02T18:00:00Z' }, 201),
      (e) => ({
        action: 'event.create',
        target: e.eid,
        eid: e.eid,
        details: { name: 'Audit Fest', event_date: '2026-06-02T18:00:00Z' },
      }),
    );
    const eid = event.eid as string;
    const write = (
      method: string,
      url: string,
      payload: unknown,
      status: number,
      expected: (answer: Json) => Partial<AuditEntry>,
    ) => recordsOne(app, () => call(app, method, url, payload, status), expected);

    await write('PATCH', `/admin/v1/events/${eid}`, { capacity: 100 }, 200, () => ({
      action: 'event.update',
      target: eid,
      eid,
      details: { capacity: 100 },
    }));
    await write('PUT', `/admin/v1/events/${eid}/gates/north`, { name: 'North', admits: null }, 200, () => ({
      action: 'gate.put',
      target: 'north',
      eid,
    }));
    await write('PUT', `/admin/v1/events/${eid}/ticket-types/VIP`, {}, 200, () => ({
      action: 'ticket_type.put',
      target: 'VIP',
      eid,
    }));
    const ticket = await write(
      'POST',
      `/admin/v1/events/${eid}/tickets`,
      { holder_name: 'Ada', ticket_type: 'GA' },
      201,
      (t) => ({
        action: 'ticket.create',
        target: t.tid,
        eid,
      }),
    );
    const tickets = ['a', 'b', 'c'].map((x) => ({ holder_name: `H ${x}`, ticket_type: 'GA', external_id: `ext-${x}` }));
    const bulk = await write('POST', `/admin/v1/events/${eid}/tickets`, { tickets }, 201, () => ({
      action: 'ticket.create',
      target: eid,
      eid,
      details: { count: 3, created: 3 },
    }));
    const tid = ticket.tid as string;
    // Paths naming a ticket, a token or a key without its event: the entry still names the event.
    await write('PATCH', `/admin/v1/tickets/${tid}`, { attention: true }, 200, () => ({
      action: 'ticket.update',
      target: tid,
      eid,
    }));
    await write('POST', `/admin/v1/tickets/${tid}/revoke`, { reason: 'refunded' }, 200, () => ({
      action: 'ticket.revoke',
      target: tid,
      eid,
      details: { reason: 'refunded' },
    }));
    const other = bulk.tickets[0].tid as string;
    await write('POST', `/admin/v1/tickets/${other}/reissue`, {}, 200, () => ({
      action: 'ticket.reissue',
      target: other,
      eid,
    }));
    const token = await write('POST', `/admin/v1/events/${eid}/enrollment-tokens`, {}, 201, (t) => ({
      action: 'enrollment_token.create',
      target: t.token_id,
      eid,
      details: {},
    }));
    await write('POST', `/admin/v1/enrollment-tokens/${token.token_id}/revoke`, {}, 200, () => ({
      action: 'enrollment_token.revoke',
      target: token.token_id,
      eid,
    }));
    // A scanner's own requests (enrolment, check-in) are not admin writes: they record nothing.
    const setup = await write('POST', `/admin/v1/events/${eid}/enrollment-tokens`, {}, 201, (t) => ({
      target: t.token_id,
    }));
    const scanner = { apiKey: '', apiKeyId: '' };
    const scannerId = randomUUID();
    await recordsNone(app, async () => {
      const enrolled = await app.inject({
        method: 'POST',
        url: '/api/v1/scanners/enroll',
        payload: { token: setup.token, scanner_id: scannerId, scanner_name: 'Gate', scanner_platform: 'iOS' },
      });
      assert.equal(enrolled.statusCode, 200, enrolled.body);
      Object.assign(scanner, { apiKey: enrolled.json().api_key, apiKeyId: enrolled.json().api_key_id });
      const checkIn = {
        tid: bulk.tickets[1].tid,
        eid,
        scanned_at: T0,
        scanner_id: scannerId,
        idempotency_key: randomUUID(),
      };
      assert.equal((await postCheckIn(app, scanner.apiKey, checkIn)).json().status, 'valid');
    });
    const scans = (await call(app, 'GET', `/admin/v1/events/${eid}/scans`, undefined, 200)).scans as Json[];
    const scanId = String(scans[0]!.scan_id);
    await write('POST', `/admin/v1/events/${eid}/scans/${scanId}/annul`, { reason: 'turnstile' }, 200, () => ({
      action: 'scan.annul',
      target: scanId,
      eid,
      details: { reason: 'turnstile' },
    }));
    await write('POST', `/admin/v1/api-keys/${scanner.apiKeyId}/revoke`, {}, 200, () => ({
      action: 'api_key.revoke',
      target: scanner.apiKeyId,
      eid,
    }));
    const keys = (await call(app, 'GET', '/admin/v1/signing-keys', undefined, 200)).keys as Json[];
    const oldKid = keys.find((key) => key.status === 'active')!.kid as string;
    await write('POST', '/admin/v1/signing-keys/rotate', {}, 201, (k) => ({
      action: 'signing_key.rotate',
      target: k.kid,
      eid: null,
    }));
    await write('DELETE', `/admin/v1/signing-keys/${oldKid}`, undefined, 200, () => ({
      action: 'signing_key.delete',
      target: oldKid,
      eid: null,
    }));
    const hook = await write(
      'POST',
      '/admin/v1/webhooks',
      { url: 'http://127.0.0.1:9/hook?key=abc#frag', event_types: ['ticket.revoked'] },
      201,
      (w) => ({
        action: 'webhook.create',
        target: w.webhook_id,
        eid: null,
        // Where credentials travel in an address (its query) is left out.
        details: { url: 'http://127.0.0.1:9/hook', event_types: ['ticket.revoked'] },
      }),
    );
    const webhookId = hook.webhook_id as string;
    await write('PATCH', `/admin/v1/webhooks/${webhookId}`, { description: 'ops' }, 200, () => ({
      action: 'webhook.update',
      target: webhookId,
    }));
    await write('POST', `/admin/v1/webhooks/${webhookId}/rotate-secret`, {}, 200, () => ({
      action: 'webhook.rotate_secret',
      target: webhookId,
    }));
    await write('POST', `/admin/v1/webhooks/${webhookId}/test`, {}, 202, () => ({
      action: 'webhook.test',
      target: webhookId,
    }));
    const deliveries = (await call(app, 'GET', `/admin/v1/webhooks/${webhookId}/deliveries`, undefined, 200))
      .deliveries as Json[];
    const messageId = deliveries[0]!.message_id as string;
    await write('POST', `/admin/v1/webhooks/${webhookId}/deliveries/${messageId}/redeliver`, {}, 202, () => ({
      action: 'webhook.redeliver',
      target: messageId,
      details: { webhook_id: webhookId },
    }));
    await write('DELETE', `/admin/v1/webhooks/${webhookId}`, undefined, 204, () => ({
      action: 'webhook.delete',
      target: webhookId,
    }));
    await write('DELETE', `/admin/v1/events/${eid}/ticket-types/VIP`, undefined, 204, () => ({
      action: 'ticket_type.delete',
      target: 'VIP',
      eid,
    }));
    await write('DELETE', `/admin/v1/events/${eid}/gates/north`, undefined, 204, () => ({
      action: 'gate.delete',
      target: 'north',
      eid,
    }));
  });
});
