/**
 * One history's world on a test issuer: its event (calendar, gates, ticket types, tickets) made through
 * the admin API, and its devices, each a real scanner (the scanner package over memory storage) whose
 * requests reach the issuer through `app.inject`, on the issuer's clock.
 */
import { eventDayOf } from '@ticket-issuer/protocol';
import {
  enroll,
  MemoryStorage,
  type RetryPolicy,
  Scanner,
  type Timer,
  type Transport,
} from '../../packages/scanner/src/index.ts';
import type { App } from '../../src/http/context.ts';
import type { Store } from '../../src/store/store.ts';
import { ADMIN_TOKEN, adminCall, type TestIssuer } from '../helpers/app.ts';
import type { History, TypeName, TypeRules } from './history.ts';

/** Requests of a device, answered by the app in process (the discovery names the test's BASE_URL). */
export function injectTransport(app: App): Transport {
  return async ({ method, url, headers, body }) => {
    const { pathname, search } = new URL(url);
    const res = await app.inject({ method, url: pathname + search, headers, ...(body === undefined ? {} : { body }) });
    return {
      status: res.statusCode,
      header: (name) => (res.headers[name.toLowerCase()] as string) ?? null,
      body: res.body,
    };
  };
}

/** No waiting between tries: the app answers at once or not at all. */
const NO_WAIT: { retryPolicy: RetryPolicy; timer: Timer } = {
  retryPolicy: { initialBackoffMs: 0, maxAttempts: 1, budgetMs: 0, maxRetryAfterMs: 0, rateLimitBudgetMs: 0 },
  timer: { now: () => Date.now(), sleep: async () => undefined },
};

export interface Device {
  scanner: Scanner;
  storage: MemoryStorage;
  scannerId: string;
  apiKey: string;
  /** The device's clock minus the issuer's, in milliseconds (a `skew` step sets it). */
  skew: { ms: number };
}

/** An entry a device made (online answered `valid`, or admitted offline), which it may undo. */
export interface MadeEntry {
  device: number;
  key: string;
  tid: string;
  /** Its scan time. */
  at: string;
}

export interface Ticket {
  tid: string;
  token: string;
  type: TypeName;
  /** `XXXXX-XXXXX`. */
  code: string;
}

export interface World {
  t: TestIssuer;
  /** The store itself (the app's sees no automatic-exit work: this test runs it, see `runWorker`). */
  store: Store;
  history: History;
  eid: string;
  gates: string[];
  tickets: Ticket[];
  devices: Device[];
  /** The devices' online entries answered `valid`, oldest first. */
  onlineEntries: MadeEntry[];
  /** The admissions the devices made themselves (offline, or online through the device), oldest first. */
  deviceAdmits: MadeEntry[];
  /** The next move happens at the instant of the last one (a `together` step). */
  together: boolean;
}

/** The calendar date `n` days after `day` (calendar arithmetic, not instants). */
export function dayPlus(day: string, n: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

const hhmm = (minutes: number) => {
  const m = ((minutes % 1440) + 1440) % 1440;
  return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
};

/** The body of PUT ticket-types for these rules, in the event's calendar. */
export function typeBody(rules: TypeRules, firstDay: string, dayStartsAt: string): Record<string, unknown> {
  const [h, m] = dayStartsAt.split(':').map(Number) as [number, number];
  const start = h * 60 + m;
  return {
    reentry: rules.reentry,
    max_entries: rules.max_entries,
    max_entries_per_day: rules.max_entries_per_day,
    min_minutes_between_entries: rules.min_minutes_between_entries,
    valid_days: rules.valid_days === null ? null : rules.valid_days.map((n) => dayPlus(firstDay, n)),
    hours:
      rules.hours === null
        ? null
        : { from: hhmm(start + rules.hours.from * 60), until: hhmm(start + rules.hours.until * 60) },
  };
}

/** The event's calendar as it is now (a history may change it). */
export async function calendarOf(world: World): Promise<{ timezone: string; day_starts_at: string }> {
  const event = await adminCall<{ timezone: string; day_starts_at: string }>(
    world.t.app,
    'GET',
    `/admin/v1/events/${world.eid}`,
  );
  return { timezone: event.timezone, day_starts_at: event.day_starts_at };
}

/** Declares a type's rules (PUT ticket-types) in the event's calendar as it is now; false when refused. */
export async function putType(world: World, type: TypeName, rules: TypeRules): Promise<boolean> {
  const calendar = await calendarOf(world);
  const body = typeBody(rules, eventDayOf(world.history.setup.start, calendar), calendar.day_starts_at);
  const res = await world.t.app.inject({
    method: 'PUT',
    url: `/admin/v1/events/${world.eid}/ticket-types/${type}`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    payload: body,
  });
  if (res.statusCode !== 200 && res.statusCode !== 400)
    throw new Error(`PUT ticket-types: ${res.statusCode} ${res.body}`);
  return res.statusCode === 200;
}

/**
 * Enrols a new device (the package's own enrolment, which ends with a first sync) and opens it; with
 * `search`, its key may find holders (it keeps the roster, else the codes' digests).
 */
export async function newDevice(t: TestIssuer, eid: string, search = false): Promise<Device> {
  const { setup_uri } = await adminCall<{ setup_uri: string }>(
    t.app,
    'POST',
    `/admin/v1/events/${eid}/enrollment-tokens`,
    search ? { allow_search: true } : {},
  );
  const storage = new MemoryStorage();
  const skew = { ms: 0 };
  const now = () => new Date(t.clock.now().getTime() + skew.ms);
  const options = { transport: injectTransport(t.app), now, ...NO_WAIT };
  const enrolled = await enroll(storage, setup_uri, options);
  if (!enrolled.synced) throw new Error(`the device's first sync failed: ${String(enrolled.sync_problem)}`);
  const scanner = await Scanner.open(storage, options);
  const apiKey = (JSON.parse(storage.files.get('credentials.json')!) as { api_key: string }).api_key;
  return { scanner, storage, scannerId: enrolled.scanner_id, apiKey, skew };
}

/** Makes the history's event on the issuer, at its start, with its devices. */
export async function openWorld(t: TestIssuer, store: Store, history: History): Promise<World> {
  const { setup } = history;
  t.clock.set(setup.start);
  const { eid } = await adminCall<{ eid: string }>(t.app, 'POST', '/admin/v1/events', {
    name: 'Differential Festival',
    event_date: setup.start,
    ends_at: new Date(Date.parse(setup.start) + 8 * 86_400_000).toISOString(),
    timezone: setup.timezone,
    day_starts_at: setup.day_starts_at,
    auto_exit: setup.auto_exit,
  });
  await adminCall(t.app, 'PATCH', `/admin/v1/events/${eid}`, { reentry: setup.reentry });
  const gates = setup.gates.map((_, n) => `g${n}`);
  for (const [n, admits] of setup.gates.entries()) {
    await adminCall(t.app, 'PUT', `/admin/v1/events/${eid}/gates/${gates[n]}`, { name: `Gate ${n}`, admits });
  }
  const world: World = {
    t,
    store,
    history,
    eid,
    gates,
    tickets: [],
    devices: [],
    onlineEntries: [],
    deviceAdmits: [],
    together: false,
  };
  for (const type of ['A', 'B'] as const) {
    if (!(await putType(world, type, setup.types[type]))) throw new Error(`the rules of ${type} were refused`);
  }
  const order = setup.grouped ? { order_ref: 'ORDER-1' } : {};
  const issued = await adminCall<{ tickets: { tid: string; ticket_token: string; short_code: string }[] }>(
    t.app,
    'POST',
    `/admin/v1/events/${eid}/tickets`,
    { tickets: setup.tickets.map((type, n) => ({ holder_name: `Holder ${n}`, ticket_type: type, ...order })) },
  );
  world.tickets = issued.tickets.map((ticket, n) => ({
    tid: ticket.tid,
    token: ticket.ticket_token,
    type: setup.tickets[n]!,
    code: ticket.short_code,
  }));
  for (let n = 0; n < setup.devices; n++) world.devices.push(await newDevice(t, eid, setup.search?.[n] === true));
  return world;
}

/** Closes the world's devices. */
export async function closeWorld(world: World): Promise<void> {
  for (const device of world.devices) await device.scanner.close();
}
