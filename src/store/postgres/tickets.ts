import { SEARCH_TICKETS_SQL, searchPatterns } from '../console-queries.ts';
import { enqueueWalletPushes } from './wallet-pushes.ts';
import { searchKey, searchWords } from '../search-key.ts';
import { FIND_HOLDERS_SQL, type HolderMatch, holderPatterns, toHolderMatch } from '../holder-search.ts';
import { reissueRefusal } from '../reissue.ts';
import { page, TICKET_COLUMNS_SQL } from '../rows.ts';
import type { Page, ReissueResult, TicketRecord } from '../store.ts';
import { reissuedMessage, revokedMessage } from '../outbox-data.ts';
import { appendChange } from './feed.ts';
import { bumpCounters, bumpTypeCounts } from './counters.ts';
import { typeCountsMoved, typeCountsOfNew } from '../report-counts.ts';
import { inChunks } from '../chunks.ts';
import { CountsByEvent } from '../counters.ts';
import { hasNotes } from '../ticket-notes.ts';
import { appendNotesChanges, lockFeedCounters } from './ticket-notes.ts';
import { all, type Db, numbered, one, type Tx } from './queries.ts';
import { noteAudit } from '../audit-context.ts';

const SEARCH_TICKETS = numbered(SEARCH_TICKETS_SQL);
const FIND_HOLDERS = numbered(FIND_HOLDERS_SQL);
const TICKET_BY_TID = `SELECT ${TICKET_COLUMNS_SQL} FROM tickets WHERE tid = $1`;

const TICKET_COLUMNS = [
  'tid',
  'eid',
  'holder_name',
  'ticket_type',
  'issued_at',
  'expires_at',
  'checked_in_at',
  'revoked_at',
  'revoke_reason',
  'ticket_token',
  'external_id',
  'valid_from',
  'checkin_text',
  'email',
  'order_ref',
  'short_code',
] as const;
const INSERTED_COLUMNS = [...TICKET_COLUMNS, 'search_name', 'search_words', 'attention', 'roster_version'];
const COLUMN_TYPES: Record<string, string> = { attention: 'boolean', roster_version: 'bigint' };

/**
 * Inserts a part of an import in the order given (one array parameter per column stays clear of the
 * 65,535 bind-parameter limit), but those whose external_id their event holds: the tids created.
 */
const INSERT_TICKETS = `INSERT INTO tickets (${INSERTED_COLUMNS.join(', ')})
  SELECT ${INSERTED_COLUMNS.join(', ')}
    FROM unnest(${INSERTED_COLUMNS.map((name, i) => `$${i + 1}::${COLUMN_TYPES[name] ?? 'text'}[]`).join(', ')})
      WITH ORDINALITY AS u (${INSERTED_COLUMNS.join(', ')}, n)
   ORDER BY u.n
  ON CONFLICT (eid, external_id) WHERE external_id IS NOT NULL DO NOTHING
  RETURNING tid`;

const KNOWN_BY_EXTERNAL_ID = `SELECT ${TICKET_COLUMNS_SQL} FROM tickets t
  JOIN unnest($1::text[], $2::text[]) AS s (known_eid, known_id) ON t.eid = s.known_eid AND t.external_id = s.known_id`;

/** One order for every import: by external_id (then eid), those without one last. */
function byExternalId(a: TicketRecord, b: TicketRecord): number {
  if (a.external_id === null || b.external_id === null)
    return Number(a.external_id === null) - Number(b.external_id === null);
  if (a.external_id !== b.external_id) return a.external_id < b.external_id ? -1 : 1;
  return a.eid < b.eid ? -1 : a.eid > b.eid ? 1 : 0;
}

/** Inserts one part of an import; the tids it created. */
async function insertTickets(db: Db, part: TicketRecord[], versions: Map<string, number>): Promise<string[]> {
  const values = [
    ...TICKET_COLUMNS.map((column) => part.map((ticket) => ticket[column])),
    part.map((ticket) => searchKey(ticket.holder_name)),
    part.map((ticket) => searchWords(ticket.holder_name)),
    part.map((ticket) => ticket.attention),
    // A ticket its event holds already is not inserted: its version is never read.
    part.map((ticket) => versions.get(ticket.eid) ?? 0),
  ];
  return (await db.query(INSERT_TICKETS, values)).rows.map((row) => row.tid as string);
}

/**
 * What new tickets move besides themselves: a `ticket_notes` change for each with gate notes (the feed
 * counters locked first, in eid order), then each event's counters, the lock order of every writer.
 */
async function recordNewTickets(db: Db, created: TicketRecord[]): Promise<void> {
  const noted = created.filter(hasNotes);
  if (noted.length > 0) {
    await lockFeedCounters(
      db,
      noted.map((ticket) => ticket.eid),
    );
    for (const part of inChunks(noted)) await appendNotesChanges(db, part);
  }
  const counts = new CountsByEvent();
  for (const ticket of created) counts.add(ticket);
  for (const [eid, moved] of counts.events()) await bumpCounters(db, eid, moved);
  await bumpTypeCounts(db, typeCountsOfNew(created));
}

/**
 * The next roster version of each event of these tickets, which its new tickets share; taken first,
 * in eid order, so that the counter's lock comes before anything else of the import (see
 * group-migrations.ts): versions commit in order, and concurrent imports of one event wait on it.
 */
async function takeRosterVersions(db: Db, tickets: TicketRecord[]): Promise<Map<string, number>> {
  // An event none of whose tickets is new (each one's external_id held already) takes none: an import
  // that creates nothing writes nothing (and so records no audit entry).
  const identified = tickets.filter((ticket) => ticket.external_id !== null);
  const held = new Set(
    (
      await all<{ eid: string; external_id: string }>(
        db,
        `SELECT t.eid, t.external_id FROM tickets t
           JOIN unnest($1::text[], $2::text[]) AS s (known_eid, known_id) ON t.eid = s.known_eid AND t.external_id = s.known_id`,
        [identified.map((ticket) => ticket.eid), identified.map((ticket) => ticket.external_id)],
      )
    ).map((row) => `${row.eid}\n${row.external_id}`),
  );
  const fresh = tickets.filter(
    (ticket) => ticket.external_id === null || !held.has(`${ticket.eid}\n${ticket.external_id}`),
  );
  const eids = [...new Set(fresh.map((ticket) => ticket.eid))].sort();
  if (eids.length === 0) return new Map();
  const rows = await all<{ eid: string; last_version: string }>(
    db,
    `INSERT INTO roster_counters (eid, last_version) SELECT e, 1 FROM unnest($1::text[]) AS e ORDER BY 1
       ON CONFLICT (eid) DO UPDATE SET last_version = roster_counters.last_version + 1
       RETURNING eid, last_version`,
    [eids],
  );
  return new Map(rows.map((row) => [row.eid, Number(row.last_version)]));
}

/**
 * Inserts the tickets, all or none, but those whose external_id their event holds already; answers
 * the existing tickets of those. Rows go in parts of ROWS_PER_STATEMENT (chunks.ts), each statement
 * well within the pool's statement_timeout, in one transaction. ON CONFLICT waits for a concurrent
 * insert of the same external_id and skips it once that commits, and the read that follows (a
 * statement of its own, so a snapshot of its own) sees it: concurrent imports create each ticket once.
 * Every import inserts in one order (`byExternalId`, across its parts), so two imports of the same
 * rows wait on each other in that order, never in a deadlock. The feed and the event's counters are
 * written after the inserts, so their rows are locked only for the end of the transaction.
 */
export function createTickets(tx: Tx, tickets: TicketRecord[]): Promise<TicketRecord[]> {
  const ordered = [...tickets].sort(byExternalId);
  return tx(async (db) => {
    const created = new Set<string>();
    const versions = await takeRosterVersions(db, tickets);
    for (const part of inChunks(ordered)) {
      for (const tid of await insertTickets(db, part, versions)) created.add(tid);
    }
    noteAudit({ details: { created: created.size } });
    await recordNewTickets(
      db,
      tickets.filter((ticket) => created.has(ticket.tid)),
    );
    const existing: TicketRecord[] = [];
    for (const part of inChunks(tickets.filter((ticket) => !created.has(ticket.tid)))) {
      const ids = [part.map((ticket) => ticket.eid), part.map((ticket) => ticket.external_id)];
      existing.push(...(await all<TicketRecord>(db, KNOWN_BY_EXTERNAL_ID, ids)));
    }
    return existing;
  });
}

/** The ticket, or null. */
export function getTicket(db: Db, tid: string): Promise<TicketRecord | null> {
  return one<TicketRecord>(db, TICKET_BY_TID, [tid]);
}

/** The event's tickets in issue order, a page at a time (cursor: the last tid seen). */
export async function listTickets(
  db: Db,
  eid: string,
  limit: number,
  after: string | null,
): Promise<Page<TicketRecord>> {
  const rows = await all<TicketRecord>(
    db,
    `SELECT ${TICKET_COLUMNS_SQL} FROM tickets WHERE eid = $1 AND tid > $2 ORDER BY tid LIMIT $3`,
    [eid, after ?? '', limit + 1],
  );
  return page(rows, limit, (t) => t.tid);
}

/** Tickets whose holder name contains the query (case-insensitive) or whose tid starts with it, paged. */
export async function searchTickets(
  db: Db,
  eid: string,
  query: string,
  limit: number,
  after: string | null,
): Promise<Page<TicketRecord>> {
  const { holder, tid } = searchPatterns(query);
  const rows = await all<TicketRecord>(db, SEARCH_TICKETS, [eid, after ?? '', holder, tid, limit + 1]);
  return page(rows, limit, (t) => t.tid);
}

/** Finding a holder at the gate: the best matches of the holder name first (see FIND_HOLDERS_SQL). */
export async function findHolders(db: Db, eid: string, query: string, limit: number): Promise<HolderMatch[]> {
  const rows = await all<Record<string, unknown>>(db, FIND_HOLDERS, [eid, ...holderPatterns(query), limit]);
  return rows.map(toHolderMatch);
}

/** Revokes the ticket once (a second call keeps the first time and reason); null if unknown. */
export function revokeTicket(tx: Tx, tid: string, at: string, reason: string | null): Promise<TicketRecord | null> {
  return tx(async (db) => {
    const changed = await db.query(
      'UPDATE tickets SET revoked_at = $1, revoke_reason = $2 WHERE tid = $3 AND revoked_at IS NULL RETURNING eid',
      [at, reason, tid],
    );
    const ticket = await one<TicketRecord>(db, TICKET_BY_TID, [tid]);
    if ((changed.rowCount ?? 0) > 0 && ticket) {
      await appendChange(db, ticket.eid, 'revoked', tid, at, {}, revokedMessage(ticket, at, reason));
      await bumpCounters(db, ticket.eid, { revoked: 1 });
      await bumpTypeCounts(db, typeCountsMoved({ ...ticket, revoked_at: null }, ticket));
      await enqueueWalletPushes(db, tid, ticket.eid, 'revoked', at);
    }
    return ticket;
  });
}

/** Replaces a fresh ticket's token if it is still `previousToken`, appending `token_superseded`; or refuses. */
export function reissueTicket(
  tx: Tx,
  tid: string,
  previousToken: string,
  nextToken: string,
  supersededJti: string | null,
  at: string,
): Promise<ReissueResult> {
  return tx(async (db): Promise<ReissueResult> => {
    const ticket = await one<TicketRecord>(db, `${TICKET_BY_TID} FOR UPDATE`, [tid]);
    const refusal = reissueRefusal(ticket, previousToken);
    if (refusal !== null || !ticket) return { kind: 'refused', why: refusal ?? 'unknown' };
    await db.query('UPDATE tickets SET ticket_token = $1 WHERE tid = $2', [nextToken, tid]);
    await appendChange(
      db,
      ticket.eid,
      'token_superseded',
      tid,
      at,
      { jti: supersededJti },
      reissuedMessage(ticket, nextToken, supersededJti, at),
    );
    await enqueueWalletPushes(db, tid, ticket.eid, 'reissued', at);
    return { kind: 'reissued', ticket: { ...ticket, ticket_token: nextToken } };
  });
}
