import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { adminCall, checkInBody, enrollScanner, postCheckIn, type Scenario, T0, testIssuer } from '../helpers/app.ts';

describe('far dates and guessable ids', () => {
  it('an event dated in the year 9999 works end to end: tickets, enrolment, check-in', async () => {
    const t = await testIssuer();
    const event = await adminCall<{ eid: string }>(t.app, 'POST', '/admin/v1/events', {
      name: 'The last party',
      event_date: '9999-12-31T20:00:00Z',
    });
    const ticket = await adminCall<{ tid: string; ticket_token: string }>(
      t.app,
      'POST',
      `/admin/v1/events/${event.eid}/tickets`,
      { holder_name: 'Ada', ticket_type: 'GA', expires_at: '9999-12-31T23:59:59Z' },
    );
    const token = await adminCall<{ key_expires_at: string }>(
      t.app,
      'POST',
      `/admin/v1/events/${event.eid}/enrollment-tokens`,
      {},
    );
    assert.equal(token.key_expires_at, '9999-12-31T23:59:59.999Z', 'the default key expiry is held at the end of 9999');
    const scannerId = randomUUID();
    const { apiKey } = await enrollScanner(t.app, event.eid, scannerId);
    const res = await postCheckIn(
      t.app,
      apiKey,
      checkInBody({ eid: event.eid, tid: ticket.tid, scannerId } as Scenario, T0, {
        ticket_token: ticket.ticket_token,
      }),
    );
    assert.equal(res.json().status, 'valid');
    await t.close();
  });

  it('tickets issued together do not have consecutive ids', async () => {
    const t = await testIssuer();
    const { eid } = await adminCall<{ eid: string }>(t.app, 'POST', '/admin/v1/events', {
      name: 'Bulk',
      event_date: '2026-06-02T18:00:00Z',
    });
    const { tickets } = await adminCall<{ tickets: { tid: string }[] }>(
      t.app,
      'POST',
      `/admin/v1/events/${eid}/tickets`,
      {
        tickets: Array.from({ length: 300 }, () => ({ holder_name: 'Guest', ticket_type: 'GA' })),
      },
    );
    const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    const random = (tid: string) => [...tid.slice(10)].reduce((n, c) => n * 32n + BigInt(CROCKFORD.indexOf(c)), 0n);
    const sorted = tickets.map((x) => x.tid).sort();
    for (let i = 1; i < sorted.length; i++) {
      const [a, b] = [sorted[i - 1]!, sorted[i]!];
      if (a.slice(0, 10) === b.slice(0, 10)) assert.notEqual(random(b) - random(a), 1n, `${a} and ${b} are neighbours`);
    }
    await t.close();
  });
});
