/**
 * The issuer's own consistency after a history: each ticket's presence and `entries` (status route),
 * occupancy (in all and per gate), the event's counters, the changes feed replayed in scan-time order,
 * and the scan log (one line per scan; the counted entries) tell one story. Returns what disagrees.
 */
import { ADMIN_TOKEN, adminCall } from '../helpers/app.ts';
import type { World } from './world.ts';

interface Change {
  type: string;
  tid: string;
  at: string;
  gate_id?: string | null;
  idempotency_key?: string | null;
}

interface ScanLine {
  tid: string;
  outcome: string;
  admitted_offline: boolean;
  replay: boolean;
  gate_id: string | null;
  idempotency_key: string;
  annulled_at: string | null;
}

interface Occupancy {
  inside: number;
  entries: number;
  exits: number;
  gates: { gate_id: string | null; entries: number; exits: number }[];
}

/** Refusals that still count an entry when a device admitted the holder offline. */
const COUNTED_WHEN_ADMITTED = ['already_used', 'not_valid_now', 'entry_limit_reached', 'too_soon'];

/** Whether a scan-log line is a counted entry: `valid`, or admitted offline and refused now; not annulled. */
export const countedLine = (line: ScanLine) =>
  line.annulled_at === null &&
  !line.replay &&
  (line.outcome === 'valid' || (line.admitted_offline && COUNTED_WHEN_ADMITTED.includes(line.outcome)));

async function feedOf(world: World): Promise<Change[]> {
  const changes: Change[] = [];
  let after = '';
  for (;;) {
    const res = await world.t.app.inject({
      method: 'GET',
      url: `/api/v1/events/${world.eid}/changes?limit=1000${after}`,
      headers: { authorization: `Bearer ${world.devices[0]!.apiKey}` },
    });
    const page = res.json() as { changes: Change[]; next_cursor: string; has_more: boolean };
    changes.push(...page.changes);
    if (!page.has_more) return changes;
    after = `&after=${page.next_cursor}`;
  }
}

async function scanLog(world: World): Promise<ScanLine[]> {
  const lines: ScanLine[] = [];
  let cursor = '';
  for (;;) {
    const res = await world.t.app.inject({
      method: 'GET',
      url: `/admin/v1/events/${world.eid}/scans?limit=1000${cursor}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const page = res.json() as { scans: ScanLine[]; next_cursor: string; has_more: boolean };
    lines.push(...page.scans);
    if (!page.has_more) return lines;
    cursor = `&cursor=${page.next_cursor}`;
  }
}

/** A ticket's presence and entries as its feed changes tell them, replayed in scan-time order. */
export function replayFeed(changes: readonly Change[], tid: string): { inside: boolean; entries: number } {
  const annulled = new Set(changes.filter((c) => c.type === 'annulled').map((c) => c.idempotency_key));
  const moves = changes
    .filter((c) => c.tid === tid && (c.type === 'checked_out' || c.type === 'checked_in'))
    .filter((c) => c.type !== 'checked_in' || !annulled.has(c.idempotency_key))
    .map((c, order) => ({ c, order }))
    .sort((a, b) => Date.parse(a.c.at) - Date.parse(b.c.at) || a.order - b.order);
  let inside = false;
  for (const { c } of moves) inside = c.type === 'checked_in';
  return { inside, entries: moves.filter(({ c }) => c.type === 'checked_in').length };
}

const count = <T>(list: readonly T[], where: (item: T) => boolean) => list.filter(where).length;

/** Everything in which the issuer disagrees with itself, in words (empty: none). */
export async function issuerInconsistencies(world: World): Promise<string[]> {
  const problems: string[] = [];
  const say = (what: string, a: unknown, b: unknown) => {
    if (JSON.stringify(a) !== JSON.stringify(b)) problems.push(`${what}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  };
  const { app } = world.t;
  const feed = await feedOf(world);
  const log = await scanLog(world);
  const counted = log.filter(countedLine);
  const statuses: { inside: boolean; entries: number }[] = [];
  for (const [n, { tid }] of world.tickets.entries()) {
    const res = await app.inject({
      method: 'GET',
      url: `/api/v1/tickets/${tid}/status`,
      headers: { authorization: `Bearer ${world.devices[0]!.apiKey}` },
    });
    const status = res.json() as { inside: boolean; entries: number };
    statuses.push(status);
    const replayed = replayFeed(feed, tid);
    say(`ticket ${n} inside (status, feed replayed)`, status.inside, replayed.inside);
    say(`ticket ${n} entries (status, feed)`, status.entries, replayed.entries);
    say(
      `ticket ${n} entries (status, scan log)`,
      status.entries,
      count(counted, (l) => l.tid === tid),
    );
  }
  const occupancy = await adminCall<Occupancy>(app, 'GET', `/admin/v1/events/${world.eid}/occupancy`);
  say(
    'inside (occupancy, tickets)',
    occupancy.inside,
    count(statuses, (s) => s.inside),
  );
  say(
    'entries (occupancy, tickets)',
    occupancy.entries,
    statuses.reduce((sum, s) => sum + s.entries, 0),
  );
  const exits = feed.filter((c) => c.type === 'checked_out');
  say('exits (occupancy, feed)', occupancy.exits, exits.length);
  for (const gate of world.gates) {
    const row = occupancy.gates.find((g) => g.gate_id === gate) ?? { entries: 0, exits: 0 };
    say(
      `gate ${gate} entries (occupancy, scan log)`,
      row.entries,
      count(counted, (l) => l.gate_id === gate),
    );
    say(
      `gate ${gate} exits (occupancy, feed)`,
      row.exits,
      count(exits, (c) => c.gate_id === gate),
    );
  }
  const event = await adminCall<{ counters: { checked_in: number } }>(app, 'GET', `/admin/v1/events/${world.eid}`);
  say(
    'checked_in (counter, tickets)',
    event.counters.checked_in,
    count(statuses, (s) => s.entries > 0),
  );
  const keys = log.filter((l) => !l.replay).map((l) => l.idempotency_key);
  say('scan-log lines sharing a key', keys.length - new Set(keys).size, 0);
  say(
    'replayed scan-log lines',
    count(log, (l) => l.replay),
    0,
  );
  return problems;
}
