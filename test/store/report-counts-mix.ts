import { randomUUID } from 'node:crypto';
import { eventDayOf } from '@ticket-issuer/protocol';
import { decide, type EntryRules } from '../../src/domain/decide.ts';
import { decideExit } from '../../src/domain/decide-exit.ts';
import { newEventId, newTicketId } from '../../src/domain/ids.ts';
import { newShortCodes } from '../../src/domain/short-codes.ts';
import type { AnnulRefusal } from '@ticket-issuer/protocol';
import type { AnnulSeen } from '../../src/store/annul.ts';
import type { CheckInAttempt, EventRecord, ScanRecord, Store, TicketRecord } from '../../src/store/store.ts';

/**
 * A mix of everything that moves the report's kept counts (issuing, entries on two event days alone and
 * in concurrent batches, exits, re-entries, annuls, revocations), and a recount of them from the
 * tickets and the scan log, which the kept counts must equal.
 */

/** The report's kept counts of an event, as `reportCounts` reads them. */
export interface Kept {
  types: { ticket_type: string; issued: number; revoked: number; checked_in: number; no_show: number }[];
  days: [string, number][];
}

async function allTickets(store: Store, eid: string): Promise<TicketRecord[]> {
  const tickets: TicketRecord[] = [];
  for (let after: string | null = null; ;) {
    const page = await store.tickets.listTickets(eid, 1000, after);
    tickets.push(...page.items);
    if (page.next_cursor === null) return tickets;
    after = page.next_cursor;
  }
}

async function allScans(store: Store, eid: string): Promise<ScanRecord[]> {
  const scans: ScanRecord[] = [];
  for (let after: number | null = null; ;) {
    const page = await store.checkIns.listScans(eid, 1000, after);
    scans.push(...page.items);
    after = Number(page.next_cursor);
    if (!page.has_more) return scans;
  }
}

/** The same counts from the tickets and the scan log: the grouped truth. */
export async function recountReport(store: Store, event: EventRecord): Promise<Kept> {
  const types = new Map<string, Kept['types'][number]>();
  for (const t of await allTickets(store, event.eid)) {
    const row = types.get(t.ticket_type) ?? {
      ticket_type: t.ticket_type,
      issued: 0,
      revoked: 0,
      checked_in: 0,
      no_show: 0,
    };
    row.issued += 1;
    if (t.revoked_at !== null) row.revoked += 1;
    if (t.checked_in_at !== null) row.checked_in += 1;
    if (t.revoked_at === null && t.checked_in_at === null) row.no_show += 1;
    types.set(t.ticket_type, row);
  }
  const holders = new Map<string, Set<string>>();
  for (const s of await allScans(store, event.eid)) {
    if (s.outcome !== 'valid' || s.replay || s.annulled_at !== null) continue;
    const day = eventDayOf(s.scanned_at, event);
    holders.set(day, (holders.get(day) ?? new Set()).add(s.tid));
  }
  return {
    types: [...types.values()].sort((a, b) => (a.ticket_type < b.ticket_type ? -1 : 1)),
    days: [...holders.entries()].map(([day, tids]): [string, number] => [day, tids.size]).sort(),
  };
}

export async function keptReportCounts(store: Store, eid: string): Promise<Kept> {
  const counts = await store.reports.reportCounts(eid);
  return { types: counts.types, days: [...counts.dayHolders.entries()].sort() };
}

/** A ticket of the mix's event. */
export const reportTicket = (eid: string, ticket_type: string, revoked_at: string | null = null): TicketRecord => {
  const tid = newTicketId();
  return {
    tid,
    eid,
    holder_name: 'Ada Lovelace',
    ticket_type,
    issued_at: '2026-06-01T08:00:00.000Z',
    expires_at: null,
    checked_in_at: null,
    revoked_at,
    revoke_reason: null,
    ticket_token: `token.for.${tid}`,
    external_id: null,
    valid_from: null,
    attention: false,
    checkin_text: null,
    email: null,
    order_ref: null,
    short_code: newShortCodes(1)[0]!,
  };
};

/** The mix's event: half an hour off UTC, days from 06:00 (00:10 UTC on June 2 is still June 1's day). */
export const reportEvent = (): EventRecord => ({
  eid: newEventId(),
  name: 'Report Fest',
  event_date: '2026-06-01T12:00:00.000Z',
  ends_at: null,
  created_at: '2026-06-01T08:00:00.000Z',
  reentry: true,
  capacity: null,
  timezone: 'Asia/Kolkata',
  day_starts_at: '06:00',
  auto_exit: false,
});

/** How the store's annul is judged: an organizer's rule by default would refuse what the mix does on purpose. */
export type AnnulJudge = (seen: AnnulSeen) => 'annulled' | AnnulRefusal;

/** Entries, exits and annuls of the event's tickets, as the domain decides them, straight on the store. */
export function reportActions(
  store: Store,
  event: EventRecord,
  apiKeyId: string,
  tickets: readonly TicketRecord[],
  judge: AnnulJudge = () => 'annulled',
) {
  const rules: EntryRules = {
    event: { timezone: event.timezone, day_starts_at: event.day_starts_at, reentry: true },
    types: [],
  };
  const attempt = (i: number, at: string): CheckInAttempt => ({
    eid: event.eid,
    tid: tickets[i]!.tid,
    idempotency_key: randomUUID(),
    fingerprint: `fp:${tickets[i]!.tid}:${at}`,
    api_key_id: apiKeyId,
    scanner_id: 'scanner-1',
    gate_id: 'gate-a',
    scanned_at: at,
    received_at: at,
    admitted_offline: null,
  });
  return {
    enter: (i: number, at: string): Promise<CheckInAttempt> => {
      const a = attempt(i, at);
      return store.checkIns
        .checkInWithPresence(a, (t, presence, gate, entries) =>
          decide(t, a.eid, a.scanned_at, null, null, { gate, presence, entries }, rules),
        )
        .then(() => a);
    },
    exit: (i: number, at: string) => {
      const a = attempt(i, at);
      return store.checkIns.checkOut(a, (t, presence) =>
        decideExit(t, a.eid, a.scanned_at, null, null, presence, rules.event),
      );
    },
    annul: (a: CheckInAttempt, at: string) =>
      store.checkIns.annulEntry(
        {
          eid: a.eid,
          target: { scanner_id: a.scanner_id, idempotency_key: a.idempotency_key },
          annulled_at: at,
          received_at: at,
        },
        judge,
      ),
  };
}

/** Runs the mix on an open store whose API key `apiKeyId` is in good standing; the event it made. */
export async function runReportMix(store: Store, apiKeyId: string): Promise<EventRecord> {
  const event = reportEvent();
  await store.events.createEvent(event);
  const tickets = Array.from({ length: 12 }, (_, i) => reportTicket(event.eid, i < 8 ? 'general' : 'vip'));
  tickets.push(reportTicket(event.eid, 'vip', '2026-06-01T08:00:00.000Z'));
  await store.tickets.createTickets(tickets);
  const tid = (i: number) => tickets[i]!.tid;
  const { enter, exit, annul } = reportActions(store, event, apiKeyId, tickets);

  // Day one: eight at once (a batch where the store has them), out, some in again the same night.
  await Promise.all([0, 1, 2, 3, 4, 5, 6, 8].map((i) => enter(i, '2026-06-01T13:00:00.000Z')));
  for (const i of [0, 1, 2, 3, 4, 6, 8]) await exit(i, '2026-06-01T16:00:00.000Z');
  const again = await enter(1, '2026-06-01T17:00:00.000Z');
  await enter(2, '2026-06-02T00:10:00.000Z');
  for (const i of [1, 2]) await exit(i, '2026-06-02T00:20:00.000Z');
  // Day two: some holders of day one, a new one.
  const day2 = await Promise.all([0, 4, 9].map((i) => enter(i, '2026-06-02T12:00:00.000Z')));
  // An annul of a day's second entry leaves its holders; of the only one of the day takes one off.
  await annul(again, '2026-06-02T12:05:00.000Z');
  await annul(day2[1]!, '2026-06-02T12:06:00.000Z');
  // The only entry of ticket 9: unused again, then in again.
  await annul(day2[2]!, '2026-06-02T12:07:00.000Z');
  await enter(9, '2026-06-02T12:30:00.000Z');
  // Revocations: of a holder who came, of a ticket never used, of one whose only entry is annulled after.
  await store.tickets.revokeTicket(tid(5), '2026-06-02T13:00:00.000Z', 'refund');
  await store.tickets.revokeTicket(tid(10), '2026-06-02T13:00:00.000Z', null);
  await exit(6, '2026-06-02T13:01:00.000Z');
  const sixth = await enter(7, '2026-06-02T13:05:00.000Z');
  await store.tickets.revokeTicket(tid(7), '2026-06-02T13:10:00.000Z', null);
  await annul(sixth, '2026-06-02T13:15:00.000Z');
  return event;
}
