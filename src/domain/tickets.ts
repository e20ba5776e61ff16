import { decodeJwt } from 'jose';
import type { ReissueFailure, Store, TicketRecord } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { invalidRequest, IssuerError } from './errors.ts';
import { instantField } from './events.ts';
import { newTicketId, newTokenId } from './ids.ts';
import type { TicketClaims, TicketSigner } from './signing.ts';
import { ticketEmail } from './ticket-email.ts';
import { orderRef } from './order-ref.ts';
import { newShortCodes } from './short-codes.ts';
import { checkinText, unixSeconds, validFrom } from './ticket-notes.ts';
import { toStored } from './time.ts';
import { noteAudit } from '../store/audit-context.ts';

export interface TicketDeps {
  store: Store;
  clock: Clock;
  signer: TicketSigner;
  issuer: string;
}

/** The claims of a ticket's token, signed at `now` with a fresh token id; `nbf` is its `valid_from`. */
function ticketClaims(
  deps: TicketDeps,
  ticket: Pick<TicketRecord, 'tid' | 'eid' | 'ticket_type' | 'expires_at' | 'valid_from'>,
  now: Date,
): TicketClaims {
  return {
    v: 1,
    iss: deps.issuer,
    tid: ticket.tid,
    eid: ticket.eid,
    ticket_type: ticket.ticket_type,
    iat: Math.floor(now.getTime() / 1000),
    ...(ticket.valid_from === null ? {} : { nbf: unixSeconds(ticket.valid_from) }),
    ...(ticket.expires_at === null ? {} : { exp: unixSeconds(ticket.expires_at) }),
    jti: newTokenId(),
  };
}

export interface NewTicket {
  holder_name: string;
  ticket_type: string;
  expires_at?: string | null;
  /** The organizer's own id of the ticket, unique per event: a ticket is never created twice for it. */
  external_id?: string | null;
  /** Not valid for entry before this instant (the token's `nbf`). */
  valid_from?: string | null;
  /** Notes for the gate: the holder needs attention; a text shown when the ticket is scanned. */
  attention?: boolean;
  checkin_text?: string | null;
  /** The holder's email address, where the ticket is sent; empty or null: none. */
  email?: string | null;
  /** The order or booking the ticket belongs to (its group); empty or null: none. */
  order_ref?: string | null;
}

/** What an issue request did: the tickets it created, and those it found already issued. */
export interface IssuedTickets {
  /** The new tickets, in the order asked. */
  created: TicketRecord[];
  /** The requests whose external_id the event held already, each with that ticket, in the order asked. */
  skipped: { external_id: string; ticket: TicketRecord }[];
}

/** The most tickets one request may issue. */
export const MAX_TICKETS_PER_REQUEST = 10_000;

/**
 * Each request's external_id, trimmed, or null. A blank one, or one that another ticket of the same
 * request carries too, is refused: the organizer's file has a mistake worth hearing about.
 */
function externalIds(specs: NewTicket[], field: (i: number) => string): (string | null)[] {
  const seen = new Map<string, number>();
  return specs.map((spec, i) => {
    if (spec.external_id === undefined || spec.external_id === null) return null;
    const id = spec.external_id.trim();
    if (id === '') throw invalidRequest('external_id is empty', [{ field: field(i), problem: 'must not be empty' }]);
    const first = seen.get(id);
    if (first !== undefined) {
      throw invalidRequest(`external_id "${id}" appears twice in this request`, [
        { field: field(i), problem: `repeats the external_id of ${field(first)}` },
      ]);
    }
    seen.set(id, i);
    return id;
  });
}

/**
 * Issues tickets for an event, each with its signed token, all stored in one transaction or none;
 * a request whose external_id the event holds already gets that ticket instead of a new one.
 */
export async function issueTickets(
  deps: TicketDeps,
  eid: string,
  specs: NewTicket[],
  bulk = specs.length > 1,
): Promise<IssuedTickets> {
  const now = deps.clock.now();
  const issuedAt = toStored(now);
  // Problems are named as the request named the field: `external_id`, or `tickets.3.external_id`.
  const fieldOf = (name: string) => (i: number) => (bulk ? `tickets.${i}.${name}` : name);
  const ids = externalIds(specs, fieldOf('external_id'));
  const expiries = specs.map((spec, i) =>
    spec.expires_at ? instantField(fieldOf('expires_at')(i), spec.expires_at) : null,
  );
  const starts = specs.map((spec, i) => validFrom(fieldOf('valid_from')(i), spec.valid_from, expiries[i] ?? null));
  const emails = specs.map((spec, i) => ticketEmail(fieldOf('email')(i), spec.email));
  const orders = specs.map((spec, i) => orderRef(fieldOf('order_ref')(i), spec.order_ref));
  const codes = newShortCodes(specs.length);
  const signer = await deps.signer.signerForActiveKey();
  const tickets = specs.map((spec, i): TicketRecord => {
    const tid = newTicketId();
    const expiresAt = expiries[i] ?? null;
    const validFromAt = starts[i] ?? null;
    const claims = ticketClaims(
      deps,
      { tid, eid, ticket_type: spec.ticket_type, expires_at: expiresAt, valid_from: validFromAt },
      now,
    );
    return {
      tid,
      eid,
      holder_name: spec.holder_name,
      ticket_type: spec.ticket_type,
      issued_at: issuedAt,
      expires_at: expiresAt,
      checked_in_at: null,
      revoked_at: null,
      revoke_reason: null,
      ticket_token: signer.sign(claims),
      external_id: ids[i] ?? null,
      valid_from: validFromAt,
      attention: spec.attention ?? false,
      checkin_text: checkinText(spec.checkin_text),
      email: emails[i] ?? null,
      order_ref: orders[i] ?? null,
      short_code: codes[i]!,
    };
  });
  if (!bulk) noteAudit({ target: tickets[0]!.tid });
  const existing = new Map((await deps.store.tickets.createTickets(tickets)).map((t) => [t.external_id, t]));
  const created: TicketRecord[] = [];
  const skipped: IssuedTickets['skipped'] = [];
  for (const ticket of tickets) {
    const found = ticket.external_id === null ? undefined : existing.get(ticket.external_id);
    if (found) skipped.push({ external_id: found.external_id!, ticket: found });
    else created.push(ticket);
  }
  return { created, skipped };
}

/** The id of a token, or null for a token issued before tokens carried one. */
function tokenIdOf(token: string): string | null {
  try {
    const { jti } = decodeJwt(token);
    return typeof jti === 'string' ? jti : null;
  } catch {
    return null;
  }
}

/** Why a reissue is refused, as the API answers it. */
function reissueRefused(why: ReissueFailure, tid: string, jtiNamed: boolean): IssuerError {
  switch (why) {
    case 'unknown':
      return new IssuerError('NOT_FOUND', 'no ticket has this tid');
    case 'revoked':
      return new IssuerError('CONFLICT', 'this ticket is revoked; a revoked ticket cannot be reissued', { tid });
    case 'used':
      return new IssuerError('CONFLICT', 'this ticket was already checked in; a used ticket cannot be reissued', {
        tid,
      });
    case 'changed':
      return new IssuerError(
        'CONFLICT',
        jtiNamed
          ? 'the token named by jti is no longer the current token of this ticket: it was reissued meanwhile'
          : 'this ticket was reissued by another request meanwhile; read it again before reissuing',
        { reason: 'superseded' },
      );
  }
}

/**
 * Gives a ticket a new token (new `jti`, signed by the active key) in place of its current one, which
 * is superseded from then on. Only a ticket neither revoked nor used can be reissued. `replacing`, the
 * jti of the token the caller means to replace, must be the current token's. Of concurrent reissues
 * of one token exactly one succeeds; the others are refused, never retried on the newer token (each
 * caller would hold a token superseded at once, unaware).
 */
export async function reissueTicket(deps: TicketDeps, tid: string, replacing?: string): Promise<TicketRecord> {
  const jtiNamed = replacing !== undefined;
  const ticket = await deps.store.tickets.getTicket(tid);
  if (!ticket) throw reissueRefused('unknown', tid, jtiNamed);
  const currentJti = tokenIdOf(ticket.ticket_token);
  // In the store's order: the ticket's own state first, then whether the token is still the current one.
  if (ticket.revoked_at !== null) throw reissueRefused('revoked', tid, jtiNamed);
  if (ticket.checked_in_at !== null) throw reissueRefused('used', tid, jtiNamed);
  if (jtiNamed && replacing !== currentJti) throw reissueRefused('changed', tid, jtiNamed);
  const now = deps.clock.now();
  const signer = await deps.signer.signerForActiveKey();
  const token = signer.sign(ticketClaims(deps, ticket, now));
  const result = await deps.store.tickets.reissueTicket(tid, ticket.ticket_token, token, currentJti, toStored(now));
  if (result.kind === 'reissued') return result.ticket;
  throw reissueRefused(result.why, tid, jtiNamed);
}
