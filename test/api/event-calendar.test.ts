import assert from 'node:assert/strict';
import { ADMIN_TOKEN, adminCall, enrollScanner } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';

/** The error envelope of an INVALID_REQUEST. */
interface ErrorJson {
  error: { code: string; details: { fields: { field: string }[] } };
}

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const NO_EVENT = 'evt_01NOSUCHEVENT0000000000000';

interface EventAnswer {
  eid: string;
  timezone: string;
  day_starts_at: string;
  auto_exit: boolean;
  reentry: boolean;
  capacity: number | null;
}

const calendarOf = (event: EventAnswer) => ({
  timezone: event.timezone,
  day_starts_at: event.day_starts_at,
  auto_exit: event.auto_exit,
});

await eachBackend('the event calendar and the scanner’s rules', ({ it, issuer }) => {
  const app = () => issuer().app;
  const create = (settings: Record<string, unknown> = {}) =>
    app().inject({
      method: 'POST',
      url: '/admin/v1/events',
      headers: admin,
      payload: { name: 'Calendar Fest', event_date: '2026-06-05T16:00:00Z', ...settings },
    });
  const patch = (eid: string, payload: unknown) =>
    app().inject({ method: 'PATCH', url: `/admin/v1/events/${eid}`, headers: admin, payload: payload as object });
  const read = (eid: string) => adminCall<EventAnswer>(app(), 'GET', `/admin/v1/events/${eid}`);
  const listed = async (eid: string) =>
    (await adminCall<{ events: EventAnswer[] }>(app(), 'GET', '/admin/v1/events?limit=1000')).events.find(
      (e) => e.eid === eid,
    )!;
  /** A 400 INVALID_REQUEST in the envelope that names `field`. */
  const assertNames = (res: { statusCode: number; json: () => ErrorJson }, field: string, what: string) => {
    assert.equal(res.statusCode, 400, `${what}: ${res.statusCode}`);
    assert.equal(res.json().error.code, 'INVALID_REQUEST', what);
    const fields = res.json().error.details.fields.map((f) => f.field);
    assert.ok(fields.includes(field), `${what} names ${field}, not ${fields.join(', ')}`);
  };

  it('an event without a calendar is in UTC, its days start at 00:00, no automatic exit; every answer says so', async () => {
    const created = await create();
    assert.equal(created.statusCode, 201);
    const defaults = { timezone: 'UTC', day_starts_at: '00:00', auto_exit: false };
    assert.deepEqual(calendarOf(created.json()), defaults);
    const eid = created.json().eid as string;
    assert.deepEqual(calendarOf(await read(eid)), defaults);
    assert.deepEqual(calendarOf(await listed(eid)), defaults);
    assert.deepEqual(calendarOf((await patch(eid, {})).json()), defaults);
  });

  it('POST takes the zone, day start and automatic exit; GET, the list and PATCH carry them', async () => {
    const created = await create({ timezone: 'Europe/Berlin', day_starts_at: '06:00', auto_exit: true });
    assert.equal(created.statusCode, 201);
    const set = { timezone: 'Europe/Berlin', day_starts_at: '06:00', auto_exit: true };
    assert.deepEqual(calendarOf(created.json()), set);
    const eid = created.json().eid as string;
    assert.deepEqual(calendarOf(await read(eid)), set);
    assert.deepEqual(calendarOf(await listed(eid)), set);
    const spelled = await create({ timezone: 'america/new_york' });
    assert.equal(spelled.json().timezone, 'America/New_York', 'kept as the time-zone database spells it');
  });

  it('PATCH changes each setting alone and leaves the others as they are', async () => {
    const eid = (await create()).json().eid as string;
    const zoned = await patch(eid, { timezone: 'Australia/Sydney' });
    assert.equal(zoned.statusCode, 200);
    assert.deepEqual(calendarOf(zoned.json()), {
      timezone: 'Australia/Sydney',
      day_starts_at: '00:00',
      auto_exit: false,
    });
    const early = await patch(eid, { day_starts_at: '05:30' });
    assert.deepEqual(calendarOf(early.json()), {
      timezone: 'Australia/Sydney',
      day_starts_at: '05:30',
      auto_exit: false,
    });
    const auto = await patch(eid, { auto_exit: true, capacity: 800 });
    assert.deepEqual(calendarOf(auto.json()), {
      timezone: 'Australia/Sydney',
      day_starts_at: '05:30',
      auto_exit: true,
    });
    assert.equal(auto.json().capacity, 800);
    const reentry = await patch(eid, { reentry: true });
    assert.deepEqual(calendarOf(reentry.json()), calendarOf(auto.json()));
    assert.deepEqual(calendarOf(await read(eid)), {
      timezone: 'Australia/Sydney',
      day_starts_at: '05:30',
      auto_exit: true,
    });
    const missing = await patch(NO_EVENT, { timezone: 'UTC' });
    assert.deepEqual([missing.statusCode, missing.json().error.code], [404, 'NOT_FOUND']);
  });

  it('an unknown zone or a malformed time is 400 INVALID_REQUEST naming the field, on POST and PATCH', async () => {
    const eid = (await create({ timezone: 'Europe/Lisbon' })).json().eid as string;
    const cases: [Record<string, unknown>, string][] = [
      [{ timezone: 'Mars/Olympus_Mons' }, 'timezone'],
      [{ timezone: 'Europe/Berlinn' }, 'timezone'],
      [{ timezone: '+01:00' }, 'timezone'],
      [{ timezone: '' }, 'timezone'],
      [{ timezone: 1 }, 'timezone'],
      [{ timezone: null }, 'timezone'],
      [{ day_starts_at: '6:00' }, 'day_starts_at'],
      [{ day_starts_at: '24:00' }, 'day_starts_at'],
      [{ day_starts_at: '06:60' }, 'day_starts_at'],
      [{ day_starts_at: '0600' }, 'day_starts_at'],
      [{ day_starts_at: '06:00:00' }, 'day_starts_at'],
      [{ auto_exit: 'yes' }, 'auto_exit'],
      [{ auto_exit: null }, 'auto_exit'],
    ];
    for (const [payload, field] of cases) {
      assertNames(await create(payload), field, `POST ${JSON.stringify(payload)}`);
      assertNames(await patch(eid, payload), field, `PATCH ${JSON.stringify(payload)}`);
    }
    assert.deepEqual(
      calendarOf(await read(eid)),
      { timezone: 'Europe/Lisbon', day_starts_at: '00:00', auto_exit: false },
      'nothing refused was changed',
    );
  });

  it('a scanner reads its event’s rules: gates, re-entry, calendar and the declared types only', async () => {
    const eid = (await create({ timezone: 'Europe/Berlin', day_starts_at: '06:00' })).json().eid as string;
    await adminCall(app(), 'POST', `/admin/v1/events/${eid}/tickets`, {
      tickets: ['Weekend', 'GA'].map((ticket_type) => ({ holder_name: 'Ada Lovelace', ticket_type })),
    });
    const put = async (path: string, payload: unknown) => {
      const res = await app().inject({ method: 'PUT', url: path, headers: admin, payload: payload as object });
      assert.equal(res.statusCode, 200, res.body);
    };
    await put(`/admin/v1/events/${eid}/gates/north`, { name: 'North', admits: ['Weekend'] });
    await put(`/admin/v1/events/${eid}/ticket-types/Weekend`, {
      valid_days: ['2026-06-06', '2026-06-05'],
      hours: { from: '20:00', until: '02:00' },
      max_entries_per_day: 1,
      reentry: 'any',
      attention: true,
      checkin_text: 'Wristband',
    });
    await patch(eid, { reentry: true, auto_exit: true });
    const { apiKey } = await enrollScanner(app(), eid);
    const rules = (key: string, event = eid) =>
      app().inject({
        method: 'GET',
        url: `/api/v1/events/${event}/rules`,
        headers: { authorization: `Bearer ${key}` },
      });
    const res = await rules(apiKey);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      annul_window_s: 900,
      server_time: '2026-06-01T12:00:00Z',
      gates: [{ gate_id: 'north', name: 'North', admits: ['Weekend'] }],
      reentry: true,
      timezone: 'Europe/Berlin',
      day_starts_at: '06:00',
      auto_exit: true,
      event_days: null,
      ticket_types: [
        {
          ticket_type: 'Weekend',
          valid_days: ['2026-06-05', '2026-06-06'],
          hours: { from: '20:00', until: '02:00' },
          max_entries: null,
          max_entries_per_day: 1,
          max_days: null,
          reentry: 'any',
          min_minutes_between_entries: null,
          attention: true,
          checkin_text: 'Wristband',
        },
      ],
    });
    const removed = await app().inject({
      method: 'DELETE',
      url: `/admin/v1/events/${eid}/ticket-types/weekend`,
      headers: admin,
    });
    assert.equal(removed.statusCode, 204);
    assert.deepEqual((await rules(apiKey)).json().ticket_types, [], 'a removed type is no longer sent');
  });

  it('the rules route takes the scanner key of its event only: another event’s key 403, none 401', async () => {
    const eid = (await create()).json().eid as string;
    const other = (await create()).json().eid as string;
    const { apiKey: otherKey } = await enrollScanner(app(), other);
    const refused = await app().inject({
      method: 'GET',
      url: `/api/v1/events/${eid}/rules`,
      headers: { authorization: `Bearer ${otherKey}` },
    });
    assert.deepEqual([refused.statusCode, refused.json().error.code], [403, 'FORBIDDEN']);
    const anonymous = await app().inject({ method: 'GET', url: `/api/v1/events/${eid}/rules` });
    assert.deepEqual([anonymous.statusCode, anonymous.json().error.code], [401, 'UNAUTHORIZED']);
    const adminToken = await app().inject({ method: 'GET', url: `/api/v1/events/${eid}/rules`, headers: admin });
    assert.equal(adminToken.statusCode, 401, 'the admin token is no scanner key');
    const own = await app().inject({
      method: 'GET',
      url: `/api/v1/events/${other}/rules`,
      headers: { authorization: `Bearer ${otherKey}` },
    });
    assert.deepEqual(own.json(), {
      annul_window_s: 900,
      server_time: '2026-06-01T12:00:00Z',
      gates: [],
      reentry: false,
      timezone: 'UTC',
      day_starts_at: '00:00',
      auto_exit: false,
      event_days: null,
      ticket_types: [],
    });
  });

  it('the OpenAPI document describes the calendar fields, the ticket-type routes and the rules route', async () => {
    const doc = (await app().inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const [path, method] of [
      ['/admin/v1/events/{eid}/ticket-types', 'get'],
      ['/admin/v1/events/{eid}/ticket-types/{ticket_type}', 'put'],
      ['/admin/v1/events/{eid}/ticket-types/{ticket_type}', 'delete'],
      ['/api/v1/events/{eid}/rules', 'get'],
    ]) {
      assert.ok(doc.paths[path!]?.[method!], `${method} ${path}`);
    }
    const event = doc.components.schemas.Event.properties;
    assert.deepEqual(
      ['timezone', 'day_starts_at', 'auto_exit'].filter((field) => event[field] === undefined),
      [],
    );
    assert.ok(doc.components.schemas.ScannerRules.properties.ticket_types);
  });
});
