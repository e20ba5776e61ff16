import type { Store, TicketRecord } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { instantField } from './events.ts';
import { newTicketId } from './ids.ts';
import type { TicketSigner } from './signing.ts';
import { toStored } from './time.ts';

export interface NewTicket {
  holder_name: string;
  ticket_type: string;
  expires_at?: string | null;
}

/** The most tickets one request may issue. */
export const MAX_TICKETS_PER_REQUEST = 10_000;

/** Issues tickets for an event, each with its signed token; all are stored in one transaction or none. */
export async function issueTickets(
  deps: { store: Store; clock: Clock; signer: TicketSigner; issuer: string },
  eid: string,
  specs: NewTicket[],
): Promise<TicketRecord[]> {
  const now = deps.clock.now();
  const issuedAt = toStored(now);
  const iat = Math.floor(now.getTime() / 1000);
  const expiries = specs.map((spec, i) =>
    spec.expires_at
      ? instantField(specs.length === 1 ? 'expires_at' : `tickets[${i}].expires_at`, spec.expires_at)
      : null,
  );
  const signer = await deps.signer.signerForActiveKey();
  const tickets = await Promise.all(
    specs.map(async (spec, i): Promise<TicketRecord> => {
      const tid = newTicketId();
      const expiresAt = expiries[i] ?? null;
      const claims = {
        v: 1,
        iss: deps.issuer,
        tid,
        eid,
        ticket_type: spec.ticket_type,
        iat,
        ...(expiresAt === null ? {} : { exp: Math.floor(new Date(expiresAt).getTime() / 1000) }),
      };
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
        ticket_token: await signer.sign(claims),
      };
    }),
  );
  await deps.store.createTickets(tickets);
  return tickets;
}
