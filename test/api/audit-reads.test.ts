import assert from 'node:assert/strict';
import { ADMIN_TOKEN, adminCall, enrollScanner } from '../helpers/app.ts';
import {
  allAudit,
  type AuditEntry,
  auditPage,
  call,
  eachAuditBackend,
  type Json,
  recordsNone,
} from '../helpers/audit.ts';

await eachAuditBackend('Audit trail reads', ({ backend, it, issuer }) => {
  it(`${backend}: a write that fails, or changes nothing, records nothing`, async () => {
    const app = issuer().app;
    const { eid } = await adminCall<{ eid: string }>(app, 'POST', '/admin/v1/events', {
      name: 'Quiet',
      event_date: '2026-06-02T18:00:00Z',
    });
    const { tid } = await adminCall<{ tid: string }>(app, 'POST', `/admin/v1/events/${eid}/tickets`, {
      holder_name: 'Bo',
      ticket_type: 'GA',
      external_id: 'bo-1',
    });
    await adminCall(app, 'POST', `/admin/v1/tickets/${tid}/revoke`, {}, 200);
    const activeOf = async () =>
      ((await call(app, 'GET', '/admin/v1/signing-keys', undefined, 200)).keys as Json[]).find(
        (key) => key.status === 'active',
      )!.kid as string;
    const removedKid = await activeOf();
    await adminCall(app, 'POST', '/admin/v1/signing-keys/rotate', {});
    await adminCall(app, 'DELETE', `/admin/v1/signing-keys/${removedKid}`, undefined, 200);
    const activeKid = await activeOf();
    const { apiKeyId } = await enrollScanner(app, eid);
    await adminCall(app, 'POST', `/admin/v1/api-keys/${apiKeyId}/revoke`, {}, 200);
    await recordsNone(app, async () => {
      // Refused: unknown things, a body that is not valid, the active signing key.
      await call(app, 'POST', '/admin/v1/tickets/no-such-ticket/revoke', {}, 404);
      await call(app, 'POST', '/admin/v1/events', { name: '' }, 400);
      await call(app, 'DELETE', `/admin/v1/signing-keys/${activeKid}`, undefined, 400);
      await call(app, 'PATCH', '/admin/v1/webhooks/whk_01J00000000000000000000000', { description: 'x' }, 404);
      await call(app, 'POST', `/admin/v1/events/${eid}/scans/999999/annul`, {}, 404);
      await call(app, 'DELETE', `/admin/v1/events/${eid}/gates/nowhere`, undefined, 404);
      // Answered, but nothing changed: revoked again, nothing to set, every ticket already issued.
      await call(app, 'POST', `/admin/v1/tickets/${tid}/revoke`, {}, 200);
      await call(app, 'POST', `/admin/v1/api-keys/${apiKeyId}/revoke`, {}, 200);
      await call(app, 'PATCH', `/admin/v1/events/${eid}`, {}, 200);
      await call(app, 'DELETE', `/admin/v1/signing-keys/${removedKid}`, undefined, 200);
      await call(
        app,
        'POST',
        `/admin/v1/events/${eid}/tickets`,
        { tickets: [{ holder_name: 'Bo', ticket_type: 'GA', external_id: 'bo-1' }] },
        200,
      );
    });
  });

  it(`${backend}: entries come newest first, filtered by event and person, a page at a time`, async () => {
    const app = issuer().app;
    const made = async (name: string) =>
      (await adminCall<{ eid: string }>(app, 'POST', '/admin/v1/events', { name, event_date: '2026-06-02T18:00:00Z' }))
        .eid;
    const [one, two] = [await made('One'), await made('Two')];
    for (let i = 0; i < 5; i += 1) {
      await adminCall(app, 'POST', `/admin/v1/events/${i % 2 === 0 ? one : two}/tickets`, {
        holder_name: `P${i}`,
        ticket_type: 'GA',
      });
    }
    const ofOne = await allAudit(app, { eid: one });
    assert.deepEqual(
      ofOne.map((e) => e.action),
      ['ticket.create', 'ticket.create', 'ticket.create', 'event.create'],
    );
    assert.ok(ofOne.every((e) => e.eid === one));
    const everything = await allAudit(app);
    const pages: AuditEntry[] = [];
    let cursor: string | null = null;
    do {
      const page = await auditPage(app, { limit: '2', ...(cursor ? { cursor } : {}) });
      assert.ok(page.entries.length <= 2);
      assert.equal(page.has_more, page.next_cursor !== null);
      pages.push(...page.entries);
      cursor = page.next_cursor;
    } while (cursor !== null);
    assert.deepEqual(pages, everything, 'pages of 2 give the whole trail once, in order');
    assert.deepEqual(await allAudit(app, { user_id: 'usr_nobody' }), []);
    const bad = await app.inject({
      method: 'GET',
      url: '/admin/v1/audit?cursor=abc',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.code, 'INVALID_REQUEST');
    const unauthenticated = await app.inject({ method: 'GET', url: '/admin/v1/audit' });
    assert.equal(unauthenticated.statusCode, 401);
  });

  it(`${backend}: no route changes or deletes an entry`, async () => {
    const app = issuer().app;
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const res = await app.inject({
        method,
        url: '/admin/v1/audit',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        payload: {},
      });
      assert.equal(res.statusCode, 405, `${method}: ${res.body}`);
    }
  });
});
