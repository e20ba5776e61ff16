import assert from 'node:assert/strict';
import { ADMIN_TOKEN, adminCall } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';

/** The error envelope of an INVALID_REQUEST. */
interface ErrorJson {
  error: { code: string; details: { fields: { field: string }[] } };
}

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const NO_EVENT = 'evt_01NOSUCHEVENT0000000000000';

/** The rules of a type that declares none: what a field left out takes, and what a label found on tickets shows. */
const DEFAULTS = {
  valid_days: null,
  hours: null,
  max_entries: null,
  max_entries_per_day: null,
  max_days: null,
  reentry: null,
  min_minutes_between_entries: null,
  attention: false,
  checkin_text: null,
};

const WEEKEND = {
  valid_days: ['2026-06-06', '2026-06-05'],
  hours: { from: '18:00', until: '23:30' },
  max_entries: 4,
  max_entries_per_day: 2,
  max_days: 2,
  reentry: 'after_exit',
  min_minutes_between_entries: 30,
  attention: true,
  checkin_text: 'Wristband on the left arm',
};

await eachBackend('ticket types and their entry rules through the admin API', ({ it, issuer }) => {
  const app = () => issuer().app;
  const newEvent = async (settings: Record<string, unknown> = {}) =>
    (
      await adminCall<{ eid: string }>(app(), 'POST', '/admin/v1/events', {
        name: 'Weekend Festival',
        event_date: '2026-06-05T16:00:00Z',
        ...settings,
      })
    ).eid;
  const url = (eid: string, label: string) => `/admin/v1/events/${eid}/ticket-types/${encodeURIComponent(label)}`;
  const put = (eid: string, label: string, payload: unknown) =>
    app().inject({ method: 'PUT', url: url(eid, label), headers: admin, payload: payload as object });
  const remove = (eid: string, label: string) =>
    app().inject({ method: 'DELETE', url: url(eid, label), headers: admin });
  const list = async (eid: string) =>
    (await adminCall<{ ticket_types: Record<string, unknown>[] }>(app(), 'GET', `/admin/v1/events/${eid}/ticket-types`))
      .ticket_types;
  const issue = (eid: string, types: string[]) =>
    adminCall(app(), 'POST', `/admin/v1/events/${eid}/tickets`, {
      tickets: types.map((ticket_type, i) => ({ holder_name: `Guest ${i}`, ticket_type })),
    });
  /** A 400 INVALID_REQUEST in the envelope that names `field`. */
  const assertNames = (res: { statusCode: number; json: () => ErrorJson }, field: string, what: string) => {
    assert.equal(res.statusCode, 400, `${what}: ${JSON.stringify(res.json())}`);
    assert.equal(res.json().error.code, 'INVALID_REQUEST', what);
    const fields = res.json().error.details.fields.map((f) => f.field);
    assert.ok(fields.includes(field), `${what} names ${field}, not ${fields.join(', ')}`);
  };

  it('PUT declares a type with every rule and answers it; days come back in date order', async () => {
    const eid = await newEvent();
    const res = await put(eid, 'Weekend', WEEKEND);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      ticket_type: 'Weekend',
      declared: true,
      ...WEEKEND,
      valid_days: ['2026-06-05', '2026-06-06'],
    });
    assert.deepEqual(Object.keys(res.json()), [
      'ticket_type',
      'declared',
      'valid_days',
      'hours',
      'max_entries',
      'max_entries_per_day',
      'max_days',
      'reentry',
      'min_minutes_between_entries',
      'attention',
      'checkin_text',
    ]);
    assert.deepEqual(await list(eid), [res.json()]);
  });

  it('a field left out takes its default: {} declares a type without rules, and a PUT replaces every rule', async () => {
    const eid = await newEvent();
    const empty = await put(eid, 'Day', {});
    assert.equal(empty.statusCode, 200);
    assert.deepEqual(empty.json(), { ticket_type: 'Day', declared: true, ...DEFAULTS });
    await put(eid, 'Day', WEEKEND);
    const narrowed = await put(eid, 'Day', { max_entries: 1 });
    assert.deepEqual(narrowed.json(), { ticket_type: 'Day', declared: true, ...DEFAULTS, max_entries: 1 });
    const trimmed = await put(eid, 'Day', { checkin_text: '  Show the wristband ' });
    assert.equal(trimmed.json().checkin_text, 'Show the wristband', 'a text is trimmed, as a ticket’s');
    const cleared = await put(eid, 'Day', { ...WEEKEND, checkin_text: '  ', reentry: null, valid_days: null });
    assert.equal(cleared.json().checkin_text, null, 'a blank text is none');
    assert.equal(cleared.json().valid_days, null);
    assert.equal(cleared.json().reentry, null);
    assert.deepEqual(await list(eid), [cleared.json()]);
  });

  it('the label is percent-encoded, trimmed, and one type under any spelling (the last one kept)', async () => {
    const eid = await newEvent();
    const odd = await put(eid, 'Día 1/2 & more', { attention: true });
    assert.equal(odd.statusCode, 200);
    assert.equal(odd.json().ticket_type, 'Día 1/2 & more');
    assert.equal((await put(eid, '  VIP ', { max_entries: 2 })).json().ticket_type, 'VIP');
    const respelled = await put(eid, 'vip', { max_entries: 3 });
    assert.equal(respelled.json().ticket_type, 'vip');
    assert.deepEqual(
      (await list(eid)).map((t) => [t.ticket_type, t.max_entries]),
      [
        ['Día 1/2 & more', null],
        ['vip', 3],
      ],
    );
  });

  it('hours may cross midnight when the event day starts later; in order within the event day only', async () => {
    const late = await newEvent({ day_starts_at: '06:00' });
    const night = await put(late, 'Night', { hours: { from: '20:00', until: '02:00' } });
    assert.equal(night.statusCode, 200);
    assert.deepEqual(night.json().hours, { from: '20:00', until: '02:00' });
    assertNames(
      await put(late, 'Night', { hours: { from: '05:00', until: '07:00' } }),
      'hours',
      '05:00–07:00 from 06:00',
    );
    const midnight = await newEvent();
    assertNames(await put(midnight, 'Night', { hours: { from: '20:00', until: '02:00' } }), 'hours', 'from 00:00');
    assert.equal((await put(midnight, 'Night', { hours: { from: '00:00', until: '23:59' } })).statusCode, 200);
    // A day start that would put a declared window out of order is refused, naming it.
    const patch = (payload: unknown) =>
      app().inject({ method: 'PATCH', url: `/admin/v1/events/${late}`, headers: admin, payload: payload as object });
    assertNames(await patch({ day_starts_at: '00:00' }), 'day_starts_at', 'day start under a night window');
    assert.equal((await patch({ day_starts_at: '04:00' })).statusCode, 200, 'a start that keeps the order');
  });

  it('refuses every malformed rule with 400 INVALID_REQUEST naming the field', async () => {
    const eid = await newEvent();
    const cases: [unknown, string][] = [
      [{ valid_days: [] }, 'valid_days'],
      [{ valid_days: '2026-06-05' }, 'valid_days'],
      [{ valid_days: ['2026-02-30'] }, 'valid_days'],
      [{ valid_days: ['2026-06-05', '2026-06-05'] }, 'valid_days'],
      [{ valid_days: ['June 5'] }, 'valid_days.0'],
      [{ hours: { from: '25:00', until: '02:00' } }, 'hours.from'],
      [{ hours: { from: '20:00' } }, 'hours.until'],
      [{ hours: { from: '22:00', until: '20:00' } }, 'hours'],
      [{ hours: { from: '20:00', until: '20:00' } }, 'hours'],
      [{ hours: '20:00-23:00' }, 'hours'],
      [{ hours: { from: '20:00', until: '23:00', tz: 'UTC' } }, 'hours.tz'],
      [{ max_entries: 0 }, 'max_entries'],
      [{ max_entries: 1.5 }, 'max_entries'],
      [{ max_entries: '2' }, 'max_entries'],
      [{ max_entries_per_day: -1 }, 'max_entries_per_day'],
      [{ max_days: 0 }, 'max_days'],
      [{ max_days: 2.5 }, 'max_days'],
      [{ max_days: '2' }, 'max_days'],
      [{ max_days: 1_000_001 }, 'max_days'],
      [{ min_minutes_between_entries: 0 }, 'min_minutes_between_entries'],
      [{ reentry: 'sometimes' }, 'reentry'],
      [{ reentry: true }, 'reentry'],
      [{ attention: 'yes' }, 'attention'],
      [{ checkin_text: 'x'.repeat(201) }, 'checkin_text'],
      [{ checkin_text: 42 }, 'checkin_text'],
      [{ colour: 'red' }, 'colour'],
    ];
    for (const [payload, field] of cases) assertNames(await put(eid, 'GA', payload), field, JSON.stringify(payload));
    assertNames(await put(eid, '   ', {}), 'ticket_type', 'a blank label');
    assertNames(await put(eid, 'G\u0007A', {}), 'ticket_type', 'a label with a control character');
    // The router's limit on a path segment (100 characters, percent-encoded) comes first.
    const long = await put(eid, 'x'.repeat(101), {});
    assert.deepEqual([long.statusCode, long.json().error.code], [414, 'INVALID_REQUEST']);
    assert.equal((await put(eid, 'GA', { checkin_text: 'x'.repeat(200) })).statusCode, 200, '200 characters are fine');
    assert.deepEqual(
      (await list(eid)).map((t) => t.ticket_type),
      ['GA'],
      'nothing refused was declared',
    );
  });

  it('GET lists every declared type and every other label on the tickets, undeclared with the defaults', async () => {
    const eid = await newEvent();
    await issue(eid, ['GA', 'VIP', 'vip ', 'Crew', 'GA', 'ga']);
    await put(eid, 'Vip', { max_entries: 1 });
    await put(eid, 'Backstage', { attention: true });
    assert.deepEqual(await list(eid), [
      { ticket_type: 'Backstage', declared: true, ...DEFAULTS, attention: true },
      { ticket_type: 'Crew', declared: false, ...DEFAULTS },
      { ticket_type: 'GA', declared: false, ...DEFAULTS },
      { ticket_type: 'Vip', declared: true, ...DEFAULTS, max_entries: 1 },
    ]);
    const other = await newEvent();
    await issue(other, ['Other']);
    assert.deepEqual(await list(other), [{ ticket_type: 'Other', declared: false, ...DEFAULTS }]);
    assert.deepEqual(await list(await newEvent()), [], 'an event without tickets or types lists none');
  });

  it('DELETE removes a declaration under any spelling (204); its label is then listed undeclared; 404 otherwise', async () => {
    const eid = await newEvent();
    await issue(eid, ['VIP']);
    await put(eid, 'VIP', WEEKEND);
    const removed = await remove(eid, ' vip');
    assert.equal(removed.statusCode, 204);
    assert.equal(removed.body, '');
    assert.deepEqual(await list(eid), [{ ticket_type: 'VIP', declared: false, ...DEFAULTS }]);
    const again = await remove(eid, 'VIP');
    assert.equal(again.statusCode, 404, 'a type not declared');
    assert.equal(again.json().error.code, 'NOT_FOUND');
    assert.equal((await remove(NO_EVENT, 'VIP')).json().error.code, 'NOT_FOUND');
  });

  it('an unknown event is 404 NOT_FOUND for PUT, GET and DELETE; without the admin token 401', async () => {
    for (const res of [
      await put(NO_EVENT, 'GA', {}),
      await app().inject({ method: 'GET', url: `/admin/v1/events/${NO_EVENT}/ticket-types`, headers: admin }),
      await remove(NO_EVENT, 'GA'),
    ]) {
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().error.code, 'NOT_FOUND');
    }
    const eid = await newEvent();
    const anonymous = await app().inject({ method: 'PUT', url: url(eid, 'GA'), payload: {} });
    assert.equal(anonymous.statusCode, 401);
    const read = await app().inject({ method: 'GET', url: `/admin/v1/events/${eid}/ticket-types` });
    assert.equal(read.statusCode, 401);
    assert.deepEqual(await list(eid), [], 'nothing declared without the token');
  });
});
