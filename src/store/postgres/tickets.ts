import { SEARCH_TICKETS_SQL, searchPatterns } from '../console-queries.ts';
import { searchKey, searchWords } from '../search-key.ts';
import { FIND_HOLDERS_SQL, type HolderMatch, holderPatterns, toHolderMatch } from '../holder-search.ts';
import { reissueRefusal } from '../reissue.ts';
import { page, TICKET_COLUMNS_SQL } from '../rows.ts';
import type { Page, ReissueResult, TicketRecord } from '../store.ts';
import { reissuedMessage, revokedMessage } from '../outbox-data.ts';
import { appendChange } from './feed.ts';
import { bumpCounters } from './counters.ts';
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
] as const;

/**
 * Inserts the tickets, all or none, but those whose external_id their event holds already; answers
 * the existing tickets of those. ON CONFLICT waits for a concurrent insert of the same external_id
 * and skips it once that commits, and the read that follows (a statement of its own, so a snapshot
 * of its own) sees it: concurrent imports create each ticket once. Rows go in in external_id order,
 * so two imports of the same rows wait on each other in one order, never in a deadlock. A created
 * ticket with gate notes gets a `ticket_notes` change (the feed counter locked first, as every writer does).
 */
export function createTickets(tx: Tx, tickets: TicketRecord[]): Promise<TicketRecord[]> {
  // One statement whatever the batch size: one array parameter per column stays clear of the
  // 65,535 bind-parameter limit, and a single statement is all-or-none by itself.
  const columns = [
    ...TICKET_COLUMNS.map((column) => tickets.map((ticket) => ticket[column])),
    tickets.map((ticket) => searchKey(ticket.holder_name)),
    tickets.map((ticket) => searchWords(ticket.holder_name)),
    tickets.map((ticket) => ticket.attention),
  ];
  const names = [...TICKET_COLUMNS, 'search_name', 'search_words', 'attention'];
  const types = names.map((name) => (name === 'attention' ? 'boolean[]' : 'text[]'));
  const noted = tickets.filter(hasNotes);
  return tx(async (db) => {
    if (noted.length > 0)
      await lockFeedCounters(
        db,
        noted.map((ticket) => ticket.eid),
      );
    // The event's counters move in the same statement (after the tickets: see counters.ts).
    const inserted = await db.query(
      `WITH inserted AS (
         INSERT INTO tickets (${names.join(', ')})
         SELECT * FROM unnest(${names.map((_, i) => `$${i + 1}::${types[i]}`).join(', ')}) AS u
           (${names.join(', ')}) ORDER BY u.external_id
         ON CONFLICT (eid, external_id) WHERE external_id IS NOT NULL DO NOTHING
         RETURNING tid, eid, checked_in_at, revoked_at),
       counted AS (
         INSERT INTO event_counters (eid, issued, checked_in, revoked, conflicts)
         SELECT eid, count(*), count(checked_in_at), count(revoked_at), 0 FROM inserted GROUP BY eid ORDER BY eid
         ON CONFLICT (eid) DO UPDATE SET issued = event_counters.issued + EXCLUDED.issued,
           checked_in = event_counters.checked_in + EXCLUDED.checked_in,
           revoked = event_counters.revoked + EXCLUDED.revoked)
       SELECT tid FROM inserted`,
      columns,
    );
    const created = new Set(inserted.rows.map((row) => row.tid as string));
    noteAudit({ details: { created: created.size } });
    await appendNotesChanges(
      db,
      noted.filter((ticket) => created.has(ticket.tid)),
    );
    if (inserted.rowCount === tickets.length) return [];
    const skipped = tickets.filter((ticket) => !created.has(ticket.tid));
    return all<TicketRecord>(
      db,
      `SELECT ${TICKET_COLUMNS_SQL} FROM tickets t JOIN unnest($1::text[], $2::text[]) AS s (known_eid, known_id)
         ON t.eid = s.known_eid AND t.external_id = s.known_id`,
      [skipped.map((ticket) => ticket.eid), skipped.map((ticket) => ticket.external_id)],
    );
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
    return { kind: 'reissued', ticket: { ...ticket, ticket_token: nextToken } };
  });
}
