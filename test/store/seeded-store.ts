import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decide, withoutTypes } from '../../src/domain/decide.ts';
import type { CheckInAttempt, CheckInDecider, Store, TicketRecord } from '../../src/store/store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { newApiKey, newEvent, newTicket, newToken } from './conformance.ts';

/**
 * A file store (its commits are grouped) with an event, `count` tickets (and `more`) and an enrolled key, and the
 * attempt of a first scan of any of them, judged by `judge` (the domain's decision at the seed's time,
 * no ticket types). `close` closes the store and removes its directory.
 */
export async function seededSqlite(
  count: number,
  options: ConstructorParameters<typeof SqliteStore>[1] = {},
  /** Tickets of the event issued beside the `count` (e.g. with email addresses), returned as `others`. */
  more: (eid: string) => TicketRecord[] = () => [],
  /** Where the store's directory is made (a small disk of a test's own, say). */
  root = tmpdir(),
) {
  const dir = mkdtempSync(join(root, 'seeded-store-'));
  const file = join(dir, 'issuer.db');
  const store = new SqliteStore(file, options);
  const seed = await seedEvent(store, count, more);
  const close = async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { store, file, ...seed, close };
}

/**
 * In any store: an event, `count` tickets (and `more`) and an enrolled key, and the attempt of a first
 * scan of any of them, judged by `judge` (the domain's decision at the seed's time, no ticket types).
 */
export async function seedEvent(store: Store, count: number, more: (eid: string) => TicketRecord[] = () => []) {
  const event = newEvent();
  await store.events.createEvent(event);
  const tickets = Array.from({ length: count }, () => newTicket(event.eid));
  const others = more(event.eid);
  await store.tickets.createTickets([...tickets, ...others]);
  const token = newToken(event.eid);
  await store.scanners.createEnrollmentToken(token);
  const key = newApiKey();
  assert.equal((await store.scanners.redeemEnrollmentToken(token.token_hash, token.created_at, key)).kind, 'enrolled');
  const attempt = (ticket: TicketRecord, gateId: string | null, scannedAt: string): CheckInAttempt => ({
    eid: event.eid,
    tid: ticket.tid,
    idempotency_key: randomUUID(),
    fingerprint: `fp:${ticket.tid}`,
    api_key_id: key.api_key_id,
    scanner_id: key.scanner_id,
    gate_id: gateId,
    scanned_at: scannedAt,
    received_at: scannedAt,
    admitted_offline: false,
  });
  const scannedAt = token.created_at;
  const judge: CheckInDecider = (stored, gate, entries) =>
    decide(stored, event.eid, scannedAt, null, stored?.ticket_token ?? null, { gate, entries }, withoutTypes(false));
  return { event, tickets, others, key, attempt, scannedAt, judge };
}

/**
 * First scans of the seed's tickets, `inFlight` at a time (a group commit busy at every moment), each
 * answered 200; resolves with the largest WAL seen, read after every `every`-th check-in.
 */
export async function checkInAll(
  seeded: Awaited<ReturnType<typeof seededSqlite>>,
  inFlight: number,
  every = 1,
): Promise<number> {
  const { store, file, tickets, attempt, scannedAt, judge } = seeded;
  let next = 0;
  let largestWal = 0;
  const worker = async () => {
    while (next < tickets.length) {
      const i = next++;
      const result = await store.checkIns.checkIn(attempt(tickets[i]!, null, scannedAt), judge);
      assert.equal(result.kind === 'answered' && result.answer.http_status, 200);
      if (i % every === 0) largestWal = Math.max(largestWal, statSync(`${file}-wal`).size);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return largestWal;
}
