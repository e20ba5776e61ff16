import type { TicketRecord } from '../store/store.ts';
import type { CheckInDeps, CheckInRequest } from './check-in.ts';
import { IssuerError } from './errors.ts';
import type { TicketClaims } from './signing.ts';

/**
 * What the issuer makes of the presented token before the store step: why it is not acceptable
 * (`settled`, null when it is, or when there is no token), or a token that passed every check but its
 * signature (`signature_pending`). The issuer's own verification outranks the scanner's verdict.
 */
export type TokenVerdict =
  | { kind: 'settled'; problem: string | null }
  | { kind: 'signature_pending'; claims: TicketClaims; signatureValid: () => Promise<boolean> };

export async function readToken(deps: CheckInDeps, request: CheckInRequest): Promise<TokenVerdict> {
  // A scanner that could not verify the signature turned the holder away: its report stands, token or
  // not, so that a key it did not know yet never turns a rejection into a check-in.
  if (request.signature_valid === false) return { kind: 'settled', problem: 'scanner reported an invalid signature' };
  if (request.ticket_token === undefined) return { kind: 'settled', problem: null };
  const read = await deps.signer.read(request.ticket_token);
  if (!read.ok) {
    if ('version' in read) {
      throw new IssuerError('PROTOCOL_VERSION_UNSUPPORTED', 'the ticket token uses an unsupported protocol version', {
        supported: ['1'],
      });
    }
    return { kind: 'settled', problem: read.reason };
  }
  return { kind: 'signature_pending', claims: read.claims, signatureValid: read.signatureValid };
}

/** Why a token whose signature is genuine is still not acceptable for this request, or null. */
function claimsProblem(claims: TicketClaims, deps: CheckInDeps, request: CheckInRequest): string | null {
  if (claims.v !== 1) return 'missing v';
  if (claims.iss !== deps.issuer) return 'token issued by another issuer';
  if (claims.tid !== request.tid) return 'token tid differs from the request';
  if (claims.eid !== request.eid) return 'token eid differs from the request';
  return null;
}

/** Checks a pending signature: the verdict on a token that is not the ticket's stored one. */
export async function checkSignature(
  deps: CheckInDeps,
  request: CheckInRequest,
  pending: Extract<TokenVerdict, { kind: 'signature_pending' }>,
): Promise<TokenVerdict> {
  const problem = (await pending.signatureValid()) ? claimsProblem(pending.claims, deps, request) : 'bad signature';
  return { kind: 'settled', problem };
}

/** Thrown from inside the store step: this token's signature must be checked before it is decided. */
export class SignatureCheckNeeded extends Error {}

/**
 * The signature verdict inside the store step, on the ticket as stored. The token the issuer stored
 * for the ticket, character for character, carries the issuer's own signature (only the issuer
 * writes it, right after signing it), so its check is skipped; any other token (superseded, forged,
 * of an unknown tid) sends the attempt back to have its signature checked first.
 */
export function signatureProblem(
  verdict: TokenVerdict,
  ticket: TicketRecord | null,
  deps: CheckInDeps,
  request: CheckInRequest,
): string | null {
  if (verdict.kind === 'settled') return verdict.problem;
  if (ticket === null || request.ticket_token !== ticket.ticket_token) throw new SignatureCheckNeeded();
  return claimsProblem(verdict.claims, deps, request);
}
