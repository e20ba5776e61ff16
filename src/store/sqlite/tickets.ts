import type { Page, ReissueResult, TicketRecord } from '../store.ts';
import { enqueueWalletPushes } from './wallet-pushes.ts';
import { SEARCH_TICKETS_SQL, searchPatterns } from '../console-queries.ts';
import { searchKey, searchWords } from '../search-key.ts';
import { reissueRefusal } from '../reissue.ts';
import { FIND_HOLDERS_SQL, type HolderMatch, holderPatterns, toHolderMatch } from '../holder-search.ts';
import { page, type Row, TICKET_COLUMNS_SQL, toTicket } from '../rows.ts';
import type { SqliteContext } from './context.ts';
import { reissuedMessage, revokedMessage } from '../outbox-data.ts';
import { appendChange } from './feed.ts';
import { bumpCounters, bumpTypeCounts } from './counters.ts';
import { typeCountsMoved, typeCountsOfNew } from '../report-counts.ts';
import { CountsByEvent } from '../counters.ts';
import { hasNotes } from '../ticket-notes.ts';
import { appendNotesChange } from './ticket-notes.ts';
import { noteAudit } from '../audit-context.ts';

const TICKET_BY_TID = `SELECT ${TICKET_COLUMNS_SQL} FROM tickets WHERE tid = ?`;

export function createTickets(c: SqliteContext, tickets: TicketRecord[]): Promise<TicketRecord[]> {
  return c.tx(() => {
    // A ticket whose external_id its event holds already is skipped (the partial unique index is the
    // arbiter); a tid that exists still fails the whole batch.
    const insert = c.statement(
      `INSERT INTO tickets (tid, eid, holder_name, ticket_type, issued_at, expires_at,
           checked_in_at, revoked_at, revoke_reason, ticket_token, external_id, search_name,
           search_words, valid_from, attention, checkin_text, email, order_ref, short_code, roster_version)
         VALUES (@tid, @eid, @holder_name, @ticket_type, @issued_at, @expires_at,
           @checked_in_at, @revoked_at, @revoke_reason, @ticket_token, @external_id, @search_name,
           @search_words, @valid_from, @attention, @checkin_text, @email, @order_ref, @short_code, @roster_version)
         ON CONFLICT (eid, external_id) WHERE external_id IS NOT NULL DO NOTHING`,
    );
    const existing: TicketRecord[] = [];
    const created = new CountsByEvent();
    const createdTickets: TicketRecord[] = [];
    const versions = takeRosterVersions(c, tickets);
    for (const ticket of tickets) {
      if (
        insert.run({
          ...ticket,
          // A ticket its event holds already is not inserted: its version is never read.
          roster_version: versions.get(ticket.eid) ?? 0,
          search_name: searchKey(ticket.holder_name),
          search_words: searchWords(ticket.holder_name),
          attention: Number(ticket.attention),
        }).changes > 0
      ) {
        created.add(ticket);
        createdTickets.push(ticket);
        // Scanners learn a new ticket's gate notes from the feed, as they learn later changes of them.
        if (hasNotes(ticket)) appendNotesChange(c, ticket, ticket.issued_at);
        continue;
      }
      existing.push(
        toTicket(
          c.one<TicketRecord>(
            `SELECT ${TICKET_COLUMNS_SQL} FROM tickets WHERE eid = ? AND external_id = ?`,
            ticket.eid,
            ticket.external_id,
          )!,
        ),
      );
    }
    for (const [eid, moved] of created.events()) bumpCounters(c, eid, moved);
    bumpTypeCounts(c, typeCountsOfNew(createdTickets));
    noteAudit({ details: { created: tickets.length - existing.length } });
    return existing;
  });
}

/**
 * The next roster version of each event of these tickets, which its new tickets share. An event none
 * of whose tickets is new (each one's external_id held already) takes none: an import that creates
 * nothing writes nothing (and so records no audit entry).
 */
function takeRosterVersions(c: SqliteContext, tickets: TicketRecord[]): Map<string, number> {
  const next = c.statement(
    `INSERT INTO roster_counters (eid, last_version) VALUES (?, 1)
       ON CONFLICT (eid) DO UPDATE SET last_version = last_version + 1 RETURNING last_version`,
  );
  const held = c.statement('SELECT 1 FROM tickets WHERE eid = ? AND external_id = ?');
  const versions = new Map<string, number>();
  for (const { eid, external_id } of tickets) {
    if (versions.has(eid) || (external_id !== null && held.get(eid, external_id) !== undefined)) continue;
    versions.set(eid, (next.get(eid) as { last_version: number }).last_version);
  }
  return versions;
}

export async function getTicket(c: SqliteContext, tid: string): Promise<TicketRecord | null> {
  const ticket = toTicket(c.one<TicketRecord>(TICKET_BY_TID, tid));
  // What a scanner reads must already be on disk (every commit it could see asked for its fsync).
  await c.walSync?.settled();
  return ticket;
}

export async function listTickets(
  c: SqliteContext,
  eid: string,
  limit: number,
  after: string | null,
): Promise<Page<TicketRecord>> {
  const rows = c.all<TicketRecord>(
    `SELECT ${TICKET_COLUMNS_SQL} FROM tickets WHERE eid = ? AND tid > ? ORDER BY tid LIMIT ?`,
    eid,
    after ?? '',
    limit + 1,
  );
  return page(rows.map(toTicket), limit, (t) => t.tid);
}

export async function searchTickets(
  c: SqliteContext,
  eid: string,
  query: string,
  limit: number,
  after: string | null,
): Promise<Page<TicketRecord>> {
  const { holder, tid } = searchPatterns(query);
  const rows = c.all<TicketRecord>(SEARCH_TICKETS_SQL, eid, after ?? '', holder, tid, limit + 1);
  return page(rows.map(toTicket), limit, (t) => t.tid);
}

/** Finding a holder at the gate: the best matches of the holder name first (see FIND_HOLDERS_SQL). */
export async function findHolders(c: SqliteContext, eid: string, query: string, limit: number): Promise<HolderMatch[]> {
  return c.all<Row>(FIND_HOLDERS_SQL, eid, ...holderPatterns(query), limit).map(toHolderMatch);
}

export function revokeTicket(
  c: SqliteContext,
  tid: string,
  at: string,
  reason: string | null,
): Promise<TicketRecord | null> {
  return c.tx(() => {
    const changed = c.run(
      'UPDATE tickets SET revoked_at = ?, revoke_reason = ? WHERE tid = ? AND revoked_at IS NULL',
      at,
      reason,
      tid,
    );
    const ticket = toTicket(c.one<TicketRecord>(TICKET_BY_TID, tid));
    if (changed > 0 && ticket) {
      appendChange(c, ticket.eid, 'revoked', tid, at, {}, revokedMessage(ticket, at, reason));
      bumpCounters(c, ticket.eid, { revoked: 1 });
      bumpTypeCounts(c, typeCountsMoved({ ...ticket, revoked_at: null }, ticket));
      enqueueWalletPushes(c, tid, ticket.eid, 'revoked', at);
    }
    return ticket;
  });
}

export function reissueTicket(
  c: SqliteContext,
  tid: string,
  previousToken: string,
  nextToken: string,
  supersededJti: string | null,
  at: string,
): Promise<ReissueResult> {
  return c.tx((): ReissueResult => {
    const ticket = toTicket(c.one<TicketRecord>(TICKET_BY_TID, tid));
    const refusal = reissueRefusal(ticket, previousToken);
    if (refusal !== null || !ticket) return { kind: 'refused', why: refusal ?? 'unknown' };
    c.run('UPDATE tickets SET ticket_token = ? WHERE tid = ?', nextToken, tid);
    appendChange(
      c,
      ticket.eid,
      'token_superseded',
      tid,
      at,
      { jti: supersededJti },
      reissuedMessage(ticket, nextToken, supersededJti, at),
    );
    enqueueWalletPushes(c, tid, ticket.eid, 'reissued', at);
    return { kind: 'reissued', ticket: { ...ticket, ticket_token: nextToken } };
  });
}
