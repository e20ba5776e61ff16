import { newShortCodes } from '../../src/domain/short-codes.ts';
import { randomUUID } from 'node:crypto';
import { decide, withoutTypes } from '../../src/domain/decide.ts';
import { keepTurnedAway } from '../../src/domain/decide-offline.ts';
import { decideExit } from '../../src/domain/decide-exit.ts';
import { newEventId, newTicketId } from '../../src/domain/ids.ts';
import type {
  ArrivalCount,
  CheckInAttempt,
  ConflictRecord,
  EventCounters,
  Occupancy,
  ScanRecord,
  Store,
  TicketRecord,
} from '../../src/store/store.ts';

/**
 * A mix of everything that moves an event's kept counts (first entries alone and in concurrent
 * batches, exits, re-entries, revocations, double scans, replays, conflicts of every kind and scans
 * turned away offline), and a recount of each count from the records themselves (tickets, the scan
 * log, the changes feed), which the kept counts must equal.
 */

const T0 = Date.parse('2026-06-01T12:00:00.000Z');
const at = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();
const GATES = ['north', 'south', null] as const;

/** What the mix made: its two events and the keys of the scans it sent turned away offline. */
export interface Mixed {
  eids: string[];
  turnedAway: Set<string>;
}

/** Runs the mix on an open store whose API key `apiKeyId` is in good standing. */
export async function runCounterMix(store: Store, apiKeyId: string): Promise<Mixed> {
  const turnedAway = new Set<string>();
  const event = async (reentry: boolean) => {
    const eid = newEventId();
    await store.events.createEvent({
      eid,
      name: reentry ? 'Counted Fest (re-entry)' : 'Counted Fest',
      event_date: at(600),
      ends_at: null,
      created_at: at(0),
      reentry,
      capacity: null,
      timezone: 'UTC',
      day_starts_at: '00:00',
      auto_exit: false,
    });
    const tickets: TicketRecord[] = Array.from({ length: 40 }, (_, i) => ({
      tid: newTicketId(),
      eid,
      holder_name: `Holder ${i}`,
      ticket_type: 'general',
      issued_at: at(0),
      expires_at: null,
      checked_in_at: null,
      revoked_at: null,
      revoke_reason: null,
      ticket_token: `token.${i}`,
      external_id: `row-${i}`,
      valid_from: null,
      attention: false,
      checkin_text: null,
      email: null,
      order_ref: null,
      short_code: newShortCodes(1)[0]!,
    }));
    await store.tickets.createTickets(tickets);
    // Imported again: nothing is issued twice.
    await store.tickets.createTickets(tickets.slice(0, 5).map((t) => ({ ...t, tid: newTicketId() })));
    return { eid, tids: tickets.map((t) => t.tid) };
  };

  const attempt = (eid: string, tid: string, i: number, o: Partial<CheckInAttempt> = {}): CheckInAttempt => ({
    eid,
    tid,
    idempotency_key: randomUUID(),
    fingerprint: `fp:${tid}:${i}`,
    api_key_id: apiKeyId,
    scanner_id: 'scanner-1',
    gate_id: GATES[i % GATES.length]!,
    scanned_at: at(5 + (i % 7)),
    received_at: at(20),
    admitted_offline: null,
    ...o,
  });
  const entry = (a: CheckInAttempt) => {
    if (a.admitted_offline === false) turnedAway.add(a.idempotency_key);
    return store.checkIns.checkIn(a, (ticket, gate, entries) => {
      const verdict = decide(ticket, a.eid, a.scanned_at, null, null, { gate, entries }, withoutTypes(false));
      return a.admitted_offline === false ? keepTurnedAway(verdict) : verdict;
    });
  };
  const reentry = (a: CheckInAttempt) =>
    store.checkIns.checkInWithPresence(a, (ticket, presence, gate, entries) =>
      decide(ticket, a.eid, a.scanned_at, null, null, { gate, presence, entries }, withoutTypes(true)),
    );
  const exit = (a: CheckInAttempt) =>
    store.checkIns.checkOut(a, (ticket, presence) => decideExit(ticket, a.eid, a.scanned_at, null, null, presence));

  // An event without re-entry: its entries go through the store's batches where it has them.
  const a = await event(false);
  const firsts = a.tids.slice(0, 30).map((tid, i) => attempt(a.eid, tid, i));
  await Promise.all(firsts.map(entry));
  await Promise.all([
    // The same scanner again: a double scan at the gate, no conflict.
    ...a.tids.slice(0, 10).map((tid, i) => entry(attempt(a.eid, tid, i, { scanned_at: at(30) }))),
    // Another scanner that let the holder in offline: conflicts.
    ...a.tids
      .slice(10, 20)
      .map((tid, i) => entry(attempt(a.eid, tid, i, { scanner_id: 'scanner-2', admitted_offline: true }))),
    // Another scanner saying nothing, scanned before the entry reached the issuer: conflicts.
    ...a.tids.slice(20, 25).map((tid, i) => entry(attempt(a.eid, tid, i, { scanner_id: 'scanner-2' }))),
    // Another scanner that turned the holder away offline: never a conflict.
    ...a.tids
      .slice(25, 28)
      .map((tid, i) => entry(attempt(a.eid, tid, i, { scanner_id: 'scanner-2', admitted_offline: false }))),
    // A first entry turned away offline: the ticket stays unused.
    entry(attempt(a.eid, a.tids[35]!, 35, { admitted_offline: false })),
  ]);
  // A ticket in conflict twice is counted once; a replay counts nothing.
  const again = attempt(a.eid, a.tids[10]!, 10, { scanner_id: 'scanner-3', admitted_offline: true });
  await entry(again);
  await entry(again);
  await entry(firsts[3]!);
  // Exits (one of a holder not inside), revocations (one twice, one of a holder inside), a revoked scan.
  for (const tid of a.tids.slice(0, 4)) await exit(attempt(a.eid, tid, 1, { scanned_at: at(40) }));
  await exit(attempt(a.eid, a.tids[38]!, 2, { scanned_at: at(40) }));
  for (const tid of [a.tids[30]!, a.tids[30]!, a.tids[31]!, a.tids[5]!])
    await store.tickets.revokeTicket(tid, at(45), 'refund');
  await entry(attempt(a.eid, a.tids[31]!, 4, { scanned_at: at(50) }));

  // An event with re-entry: entries decided with the holder's presence, exits, entries again.
  const b = await event(true);
  for (const [i, tid] of b.tids.slice(0, 8).entries()) await reentry(attempt(b.eid, tid, i));
  for (const tid of b.tids.slice(0, 4)) await exit(attempt(b.eid, tid, 0, { scanned_at: at(60) }));
  for (const [i, tid] of b.tids.slice(0, 2).entries()) await reentry(attempt(b.eid, tid, i, { scanned_at: at(70) }));
  await reentry(attempt(b.eid, b.tids[6]!, 6, { scanner_id: 'scanner-2', admitted_offline: true }));
  await reentry(attempt(b.eid, b.tids[7]!, 7, { scanned_at: at(80) }));
  await store.tickets.revokeTicket(b.tids[39]!, at(90), null);

  return { eids: [a.eid, b.eid], turnedAway };
}

/** An event's kept counts, as the console reads them. */
export interface KeptCounts {
  counters: EventCounters;
  occupancy: Occupancy;
  arrivals: ArrivalCount[];
  /** Each card of the conflicts report: its ticket and the scanned_at of its first entry and duplicates. */
  conflicts: { tid: string; first: string; duplicates: string[] }[];
}

const cards = (items: ConflictRecord[]) =>
  items.map((c) => ({ tid: c.tid, first: c.first.scanned_at, duplicates: c.duplicates.map((d) => d.scanned_at) }));

/** The kept counts of an event (the conflicts report read two cards a page, to page it). */
export async function keptCounts(store: Store, eid: string): Promise<KeptCounts> {
  const conflicts: KeptCounts['conflicts'] = [];
  let after: number | null = null;
  for (;;) {
    const page = await store.feed.listConflicts(eid, 2, after);
    conflicts.push(...cards(page.items));
    if (page.next_cursor === null) break;
    after = Number(page.next_cursor);
  }
  return {
    counters: await store.events.countTickets(eid),
    occupancy: await store.checkIns.occupancy(eid),
    arrivals: await store.checkIns.arrivals(eid),
    conflicts,
  };
}

/** The same counts recounted from the event's tickets, scan log and changes feed. */
export async function recount(store: Store, eid: string, turnedAway: Set<string>): Promise<KeptCounts> {
  const tickets: TicketRecord[] = [];
  for (let after: string | null = null; ;) {
    const page = await store.tickets.listTickets(eid, 1000, after);
    tickets.push(...page.items);
    if (page.next_cursor === null) break;
    after = page.next_cursor;
  }
  const scans: ScanRecord[] = [];
  for (let after: number | null = null; ;) {
    const page = await store.checkIns.listScans(eid, 1000, after);
    scans.push(...page.items);
    after = Number(page.next_cursor);
    if (!page.has_more) break;
  }
  const changes = (await store.feed.listChanges(eid, 0, 10_000)).items;

  // The conflicts report's rule, applied to the scan log.
  const byTicket = new Map<string, { first: ScanRecord; duplicates: ScanRecord[] }>();
  for (const d of scans.sort((x, y) => x.scan_id - y.scan_id)) {
    if (d.outcome !== 'already_used' || d.replay || turnedAway.has(d.idempotency_key)) continue;
    const entries = scans.filter((v) => v.tid === d.tid && v.outcome === 'valid' && !v.replay && v.scan_id < d.scan_id);
    const v = entries[entries.length - 1];
    if (v === undefined || d.scanner_id === v.scanner_id) continue;
    if (!d.admitted_offline && !(d.scanned_at < v.received_at)) continue;
    const card = byTicket.get(d.tid) ?? { first: v, duplicates: [] };
    card.duplicates.push(d);
    byTicket.set(d.tid, card);
  }
  const conflicts = [...byTicket.entries()]
    .sort(([, x], [, y]) => x.first.scan_id - y.first.scan_id)
    .map(([tid, card]) => ({
      tid,
      first: card.first.scanned_at,
      duplicates: card.duplicates.map((d) => d.scanned_at),
    }));

  const gates = new Map<string, { gate_id: string | null; entries: number; exits: number }>();
  const arrivals = new Map<string, ArrivalCount>();
  for (const change of changes) {
    if (change.type !== 'checked_in' && change.type !== 'checked_out') continue;
    const gate = gates.get(change.gate_id ?? '') ?? { gate_id: change.gate_id, entries: 0, exits: 0 };
    if (change.type === 'checked_out') gate.exits += 1;
    else {
      gate.entries += 1;
      const key = `${change.at.slice(0, 16)} ${change.gate_id ?? ''}`;
      const arrival = arrivals.get(key) ?? { minute: change.at.slice(0, 16), gate_id: change.gate_id, entries: 0 };
      arrival.entries += 1;
      arrivals.set(key, arrival);
    }
    gates.set(change.gate_id ?? '', gate);
  }
  const byKey = <T>(map: Map<string, T>): T[] =>
    [...map.entries()].sort(([x], [y]) => (x < y ? -1 : 1)).map(([, v]) => v);
  const gateList = byKey(gates);
  return {
    counters: {
      issued: tickets.length,
      checked_in: tickets.filter((t) => t.checked_in_at !== null).length,
      revoked: tickets.filter((t) => t.revoked_at !== null).length,
      conflicts: conflicts.length,
    },
    occupancy: { inside: gateList.reduce((sum, g) => sum + g.entries - g.exits, 0), gates: gateList },
    arrivals: byKey(arrivals),
    conflicts,
  };
}
