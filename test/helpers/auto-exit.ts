/**
 * What the automatic-exit tests do through the HTTP API: events with a calendar, holders let in and
 * out by an enrolled scanner, the feed read to its end, occupancy, and waiting for the loop.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { localTimeOf } from '@ticket-issuer/protocol';
import type { App } from '../../src/http/context.ts';
import { ADMIN_TOKEN, adminCall, enrollScanner } from './app.ts';
// The automatic exit's loop looks every second (the contract allows 60 s): its tests wait with this.
export { eventually } from './eventually.ts';

/** A zone with daylight saving, so that day starts are the zone's own, not UTC's. */
export const ZONE = 'Europe/Berlin';

/** An instant in the form the API answers (no `.000` milliseconds). */
export const wire = (instant: Date): string => instant.toISOString().replace('.000Z', 'Z');

/** The first whole minute at least `minutes` after `from`. */
export const wholeMinuteAfter = (from: Date, minutes: number): Date =>
  new Date(Math.ceil(from.getTime() / 60_000) * 60_000 + minutes * 60_000);

/** The calendar whose event days start at `start`'s local time in ZONE (a whole minute). */
export function calendarStarting(start: Date): { timezone: string; day_starts_at: string } {
  const minutes = localTimeOf(start, ZONE).minutes;
  const hhmm = `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
  return { timezone: ZONE, day_starts_at: hhmm };
}

/** An event with `holders` tickets and an enrolled scanner at the north gate. */
export interface Gathering {
  eid: string;
  tids: string[];
  apiKey: string;
  scannerId: string;
}

/**
 * Creates an event running from the day before `now` to a few days after it, with these settings (POST
 * /admin/v1/events, then PATCH for `reentry`), its tickets, and a scanner. Its days hold every scan the
 * tests make (an event with an end admits on its days only).
 */
export async function gathering(
  app: App,
  now: Date,
  { reentry, ...settings }: Record<string, unknown>,
  holders: number,
): Promise<Gathering> {
  const event = await adminCall<{ eid: string; auto_exit: boolean }>(app, 'POST', '/admin/v1/events', {
    name: 'Harbour Festival',
    event_date: new Date(now.getTime() - 86_400_000).toISOString(),
    ends_at: new Date(now.getTime() + 4 * 86_400_000).toISOString(),
    ...settings,
  });
  assert.equal(event.auto_exit, settings.auto_exit ?? false);
  if (reentry !== undefined) {
    const res = await app.inject({
      method: 'PATCH',
      url: `/admin/v1/events/${event.eid}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { reentry },
    });
    assert.equal(res.statusCode, 200, res.body);
  }
  const tickets = Array.from({ length: holders }, (_, n) => ({ holder_name: `Holder ${n}`, ticket_type: 'Weekend' }));
  const issued = await adminCall<{ tickets: { tid: string }[] }>(app, 'POST', `/admin/v1/events/${event.eid}/tickets`, {
    tickets,
  });
  const scannerId = randomUUID();
  const { apiKey } = await enrollScanner(app, event.eid, scannerId, 'north');
  return { eid: event.eid, tids: issued.tickets.map((t) => t.tid), apiKey, scannerId };
}

const scan = (g: Gathering, tid: string, scannedAt: Date) => ({
  tid,
  eid: g.eid,
  scanned_at: wire(scannedAt),
  scanner_id: g.scannerId,
  idempotency_key: randomUUID(),
});

/** A check-in (or check-out) of one holder; its status. */
export async function pass(app: App, g: Gathering, way: 'in' | 'out', tid: string, scannedAt: Date): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: way === 'in' ? '/api/v1/tickets/check-in' : '/api/v1/tickets/check-out',
    headers: { authorization: `Bearer ${g.apiKey}` },
    payload: scan(g, tid, scannedAt),
  });
  assert.ok(res.statusCode === 200 || res.statusCode === 409, res.body);
  return (res.json() as { status: string }).status;
}

/** Lets every holder in, in uploads of 500 scans (batches of check-ins). */
export async function letAllIn(app: App, g: Gathering, scannedAt: Date): Promise<void> {
  for (let from = 0; from < g.tids.length; from += 500) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/tickets/scans',
      headers: { authorization: `Bearer ${g.apiKey}` },
      payload: {
        scans: g.tids.slice(from, from + 500).map((tid) => ({ action: 'check_in', ...scan(g, tid, scannedAt) })),
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const results = (res.json() as { results: { body: { status: string } }[] }).results;
    assert.deepEqual(new Set(results.map((r) => r.body.status)), new Set(['valid']));
  }
}

export interface FeedChange {
  type: string;
  tid: string;
  at: string;
  scanner_id?: string | null;
  gate_id?: string | null;
  auto?: boolean;
}

/** The event's whole changes feed, page after page, with each change's position (1, 2, 3…). */
export async function feed(app: App, g: Gathering): Promise<(FeedChange & { position: number })[]> {
  const changes: FeedChange[] = [];
  let after = '';
  for (;;) {
    const res = await app.inject({
      method: 'GET',
      url: `/api/v1/events/${g.eid}/changes?limit=1000${after}`,
      headers: { authorization: `Bearer ${g.apiKey}` },
    });
    assert.equal(res.statusCode, 200, res.body);
    const page = res.json() as { changes: FeedChange[]; next_cursor: string; has_more: boolean };
    changes.push(...page.changes);
    if (!page.has_more) return changes.map((change, n) => ({ ...change, position: n + 1 }));
    after = `&after=${page.next_cursor}`;
  }
}

/** The feed's automatic exits. */
export const autoExits = async (app: App, g: Gathering) =>
  (await feed(app, g)).filter((c) => c.type === 'checked_out' && c.auto === true);

export interface Occupancy {
  inside: number;
  entries: number;
  exits: number;
  gates: { gate_id: string | null; entries: number; exits: number }[];
}

export const occupancy = (app: App, g: Gathering) =>
  adminCall<Occupancy>(app, 'GET', `/admin/v1/events/${g.eid}/occupancy`);

/** A ticket's status as the scanner reads it. */
export async function status(app: App, g: Gathering, tid: string) {
  const res = await app.inject({
    method: 'GET',
    url: `/api/v1/tickets/${tid}/status`,
    headers: { authorization: `Bearer ${g.apiKey}` },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { inside: boolean; checked_in_at: string | null; checked_out_at: string | null };
}

/** Lets the loop look a few times (to show that something does not happen). */
export const fewLooks = () => new Promise((resolve) => setTimeout(resolve, 3500));
