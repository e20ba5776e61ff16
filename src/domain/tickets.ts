import { decodeJwt } from 'jose';
import type { ReissueFailure, Store, TicketRecord } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { IssuerError } from './errors.ts';
import { instantField } from './events.ts';
import { newTicketId, newTokenId } from './ids.ts';
import type { TicketClaims, TicketSigner } from './signing.ts';
import { toStored } from './time.ts';

export interface TicketDeps {
  store: Store;
  clock: Clock;
  signer: TicketSigner;
  issuer: string;
}

/** The claims of a ticket's token, signed at `now` with a fresh token id. */
function ticketClaims(
  deps: TicketDeps,
  ticket: Pick<TicketRecord, 'tid' | 'eid' | 'ticket_type' | 'expires_at'>,
  now: Date,
): TicketClaims {
  return {
    v: 1,
    iss: deps.issuer,
    tid: ticket.tid,
    eid: ticket.eid,
    ticket_type: ticket.ticket_type,
    iat: Math.floor(now.getTime() / 1000),
    ...(ticket.expires_at === null ? {} : { exp: Math.floor(new Date(ticket.expires_at).getTime() / 1000) }),
    jti: newTokenId(),
  };
}

export interface NewTicket {
  holder_name: string;
  ticket_type: string;
  expires_at?: string | null;
}

/** The most tickets one request may issue. */
export const MAX_TICKETS_PER_REQUEST = 10_000;

/** Issues tickets for an event, each with its signed token; all are stored in one transaction or none. */
export async function issueTickets(deps: TicketDeps, eid: string, specs: NewTicket[]): Promise<TicketRecord[]> {
  const now = deps.clock.now();
  const issuedAt = toStored(now);
  const expiries = specs.map((spec, i) =>
    spec.expires_at
      ? instantField(specs.length === 1 ? 'expires_at' : `tickets.${i}.expires_at`, spec.expires_at)
      : null,
  );
  const signer = await deps.signer.signerForActiveKey();
  const tickets = specs.map((spec, i): TicketRecord => {
    const tid = newTicketId();
    const expiresAt = expiries[i] ?? null;
    const claims = ticketClaims(deps, { tid, eid, ticket_type: spec.ticket_type, expires_at: expiresAt }, now);
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
    };
  });
  await deps.store.createTickets(tickets);
  return tickets;
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
  const ticket = await deps.store.getTicket(tid);
  if (!ticket) throw reissueRefused('unknown', tid, jtiNamed);
  const currentJti = tokenIdOf(ticket.ticket_token);
  // In the store's order: the ticket's own state first, then whether the token is still the current one.
  if (ticket.revoked_at !== null) throw reissueRefused('revoked', tid, jtiNamed);
  if (ticket.checked_in_at !== null) throw reissueRefused('used', tid, jtiNamed);
  if (jtiNamed && replacing !== currentJti) throw reissueRefused('changed', tid, jtiNamed);
  const now = deps.clock.now();
  const signer = await deps.signer.signerForActiveKey();
  const token = signer.sign(ticketClaims(deps, ticket, now));
  const result = await deps.store.reissueTicket(tid, ticket.ticket_token, token, currentJti, toStored(now));
  if (result.kind === 'reissued') return result.ticket;
  throw reissueRefused(result.why, tid, jtiNamed);
}
