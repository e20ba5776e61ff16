import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { eachBackend } from '../helpers/backends.ts';
import { adminCall } from '../helpers/app.ts';
import type { App } from '../../src/http/context.ts';

/** A device whose queued scans belong to an event enrols with `expected_eid`: a token of another event stays unused. */

async function eventWithToken(app: App, name: string): Promise<{ eid: string; token: string }> {
  const { eid } = await adminCall<{ eid: string }>(app, 'POST', '/admin/v1/events', {
    name,
    event_date: '2026-06-02T18:00:00Z',
  });
  const { token } = await adminCall<{ token: string }>(app, 'POST', `/admin/v1/events/${eid}/enrollment-tokens`, {});
  return { eid, token };
}

const enrol = (app: App, body: Record<string, unknown>) =>
  app.inject({ method: 'POST', url: '/api/v1/scanners/enroll', payload: { scanner_id: randomUUID(), ...body } });

await eachBackend('enrolment with expected_eid', ({ it, issuer }) => {
  it('a token of another event: 409 CONFLICT other_event, nothing enrolled, and the token still enrols', async () => {
    const app = issuer().app;
    const held = await eventWithToken(app, 'Harbour Nights');
    const other = await eventWithToken(app, 'Second Stage');
    const refused = await enrol(app, { token: other.token, expected_eid: held.eid });
    assert.equal(refused.statusCode, 409);
    assert.equal(refused.json().error.code, 'CONFLICT');
    assert.deepEqual(refused.json().error.details, { reason: 'other_event' });
    const listed = await adminCall<{ enrollment_tokens: { status: string }[] }>(
      app,
      'GET',
      `/admin/v1/events/${other.eid}/enrollment-tokens`,
    );
    assert.deepEqual(
      listed.enrollment_tokens.map((t) => t.status),
      ['open'],
    );
    assert.deepEqual(
      (await adminCall<{ scanners: unknown[] }>(app, 'GET', `/admin/v1/events/${other.eid}/scanners`)).scanners,
      [],
    );

    const enrolled = await enrol(app, { token: other.token, expected_eid: other.eid });
    assert.equal(enrolled.statusCode, 200);
    assert.equal(enrolled.json().scope.eid, other.eid);
  });

  it('a token already used is refused as before, whatever expected_eid says', async () => {
    const app = issuer().app;
    const held = await eventWithToken(app, 'Harbour Nights');
    const other = await eventWithToken(app, 'Second Stage');
    assert.equal((await enrol(app, { token: other.token })).statusCode, 200);
    const again = await enrol(app, { token: other.token, expected_eid: held.eid });
    assert.equal(again.statusCode, 400);
    assert.equal(again.json().error.code, 'INVALID_TOKEN');
  });
});
