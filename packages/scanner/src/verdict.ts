import {
  entryOutcome,
  exitOutcome,
  type GateRule,
  type HolderState,
  type OfflineOutcome,
  type PublicJwk,
  type TicketClaims,
  type TicketFacts,
} from '@ticket-issuer/protocol';
// jose's subpath entries load a few modules instead of the whole library: a CLI run starts faster.
import { decodeProtectedHeader } from 'jose/decode/protected_header';
import { compactVerify } from 'jose/jws/compact/verify';
import { decodeJwt } from 'jose/jwt/decode';
import { importJWK } from 'jose/key/import';

/** The ticket-token versions this scanner reads (the payload's `v`). */
export const TOKEN_VERSIONS: readonly number[] = [1];

type ImportedKey = Awaited<ReturnType<typeof importJWK>>;

/** The issuer's published keys, each imported once on first use and kept. */
export class KeyRing {
  private readonly jwks = new Map<string, PublicJwk>();
  private readonly imported = new Map<string, Promise<ImportedKey | null>>();

  constructor(keys: readonly PublicJwk[]) {
    for (const key of keys) {
      if (key.kty === 'OKP' && key.crv === 'Ed25519' && (key.alg === undefined || key.alg === 'EdDSA')) {
        this.jwks.set(key.kid, key);
      }
    }
  }

  /** The verification key a `kid` names, or null when the JWKS does not hold it. */
  key(kid: string): Promise<ImportedKey | null> {
    let key = this.imported.get(kid);
    if (!key) {
      const jwk = this.jwks.get(kid);
      key = jwk
        ? importJWK({ kty: jwk.kty, crv: jwk.crv, x: jwk.x }, 'EdDSA').catch(() => null)
        : Promise.resolve(null);
      this.imported.set(kid, key);
    }
    return key;
  }

  get size(): number {
    return this.jwks.size;
  }
}

/** A set of tids, as far as a verdict needs one. */
export type TidSet = Pick<ReadonlySet<string>, 'has'>;

/** What a device knows about the event's tickets besides the tokens themselves. */
export interface LocalKnowledge {
  /** Tickets the changes feed reported revoked. */
  revoked: TidSet;
  /** Superseded tokens by tid: their `jti`s, and null for "every token of that tid without a jti". */
  superseded: Pick<ReadonlyMap<string, Pick<ReadonlySet<string | null>, 'has'>>, 'get'>;
  /** Tickets the changes feed reported checked in. */
  checkedIn: TidSet;
  /** Tickets this device admitted itself. */
  admitted: TidSet;
  /** Tickets whose holder went out (the feed's exits, and this device's own). */
  out?: TidSet;
  /** The event lets a holder who went out in again (from the gates route). */
  reentry?: boolean;
}

/** The inputs of one offline decision. */
export interface VerdictInput {
  token: string;
  /** The scanner's event. */
  eid: string;
  /** The issuer a token must name in `iss`. */
  iss: string;
  /** The scan time; expiry is judged at it. */
  scannedAt: Date;
  keys: KeyRing;
  knowledge: LocalKnowledge;
  /** The declared gate scanned at (from the issuer's gates route), or null: every type is let in. */
  gate?: GateRule | null;
}

/** An offline verdict. `tid` is read even from a token whose signature fails (null when unreadable). */
export interface OfflineVerdict {
  verdict: 'admit' | 'reject' | 'exit';
  reason: OfflineOutcome;
  tid: string | null;
  /** The verified claims; null when the signature did not verify. */
  claims: TicketClaims | null;
}

/**
 * A token's header and payload, read without verification; null when it is not a compact JWS with a
 * JSON payload. A damaged header reads as empty: the token still names its ticket (and is sent to the
 * issuer like any token), and its signature fails.
 */
export function readToken(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } | null {
  if (token.split('.').length !== 3) return null;
  let payload: Record<string, unknown>;
  try {
    payload = decodeJwt(token) as Record<string, unknown>;
  } catch {
    return null;
  }
  try {
    return { header: decodeProtectedHeader(token) as Record<string, unknown>, payload };
  } catch {
    return { header: {}, payload };
  }
}

const reject = (reason: OfflineOutcome, tid: string | null, claims: TicketClaims | null): OfflineVerdict => ({
  verdict: 'reject',
  reason,
  tid,
  claims,
});

/** The verified claims, or null: alg, version, kid, signature and issuer, as the issuer checks them. */
async function verifiedClaims(token: string, input: VerdictInput, header: Record<string, unknown>) {
  if (header.alg !== 'EdDSA' || typeof header.kid !== 'string') return null;
  const key = await input.keys.key(header.kid);
  if (key === null) return null;
  try {
    const { payload } = await compactVerify(token, key, { algorithms: ['EdDSA'] });
    const claims = JSON.parse(new TextDecoder().decode(payload)) as TicketClaims;
    if (!TOKEN_VERSIONS.includes(claims.v) || claims.iss !== input.iss) return null;
    return typeof claims.tid === 'string' && typeof claims.eid === 'string' ? claims : null;
  } catch {
    return null;
  }
}

/** Whether this token was replaced by a reissue: its `jti` is superseded, or it has none and null is. */
function isSuperseded(claims: TicketClaims, knowledge: LocalKnowledge): boolean {
  const jtis = knowledge.superseded.get(claims.tid);
  if (!jtis) return false;
  return jtis.has(typeof claims.jti === 'string' ? claims.jti : null);
}

/** Where the device knows the holder is: came in (the feed, or admitted here), and went out since. */
function holderOf(tid: string, knowledge: LocalKnowledge): HolderState {
  if (!knowledge.checkedIn.has(tid) && !knowledge.admitted.has(tid)) return 'unused';
  return knowledge.out?.has(tid) === true ? 'out' : 'inside';
}

/** The facts of the shared rules, as the device knows them, for a token whose signature verified. */
function factsOf(claims: TicketClaims, input: VerdictInput): TicketFacts {
  const { knowledge } = input;
  return {
    signatureValid: true,
    sameEvent: claims.eid === input.eid,
    revoked: knowledge.revoked.has(claims.tid) || isSuperseded(claims, knowledge),
    holder: holderOf(claims.tid, knowledge),
    expired: typeof claims.exp === 'number' && claims.exp * 1000 <= input.scannedAt.getTime(),
    ticketType: claims.ticket_type,
  };
}

/** The verified claims of the token, or the verdict that ends the decision (unreadable, bad signature). */
async function readVerified(input: VerdictInput): Promise<TicketClaims | OfflineVerdict> {
  const read = readToken(input.token);
  if (read === null) return reject('invalid_signature', null, null);
  const unverifiedTid = typeof read.payload.tid === 'string' ? read.payload.tid : null;
  const claims = await verifiedClaims(input.token, input, read.header);
  return claims ?? reject('invalid_signature', unverifiedTid, null);
}

const isVerdict = (value: TicketClaims | OfflineVerdict): value is OfflineVerdict => 'verdict' in value;

/**
 * The offline decision, pure (no I/O, no clock): the shared rules (`entryOutcome`, the issuer's
 * order of checks) on what the device knows. invalid_signature, wrong_event, revoked (a superseded
 * token included), ticket_type_not_admitted (at a declared gate), already_used (a holder who went
 * out comes in again where the event allows re-entry), expired, else valid.
 */
export async function decideOffline(input: VerdictInput): Promise<OfflineVerdict> {
  const claims = await readVerified(input);
  if (isVerdict(claims)) return claims;
  const outcome = entryOutcome(factsOf(claims, input), input.gate ?? null, input.knowledge.reentry === true);
  if (outcome === 'valid') return { verdict: 'admit', reason: 'valid', tid: claims.tid, claims };
  return reject(outcome, claims.tid, claims);
}

/**
 * The offline decision on an exit scan, on the shared rules (`exitOutcome`): the signature and the
 * event as at an entry; a revoked ticket (or superseded token) is let out (the issuer counts a holder
 * inside out); a holder the device knows is not inside (never came in, or went out) is `not_inside`;
 * otherwise `exit`. Never refused for the gate or the expiry: the holder is leaving.
 */
export async function decideExitOffline(input: VerdictInput): Promise<OfflineVerdict> {
  const claims = await readVerified(input);
  if (isVerdict(claims)) return claims;
  const outcome = exitOutcome(factsOf(claims, input));
  if (outcome === 'checked_out' || outcome === 'revoked') {
    return { verdict: 'exit', reason: outcome, tid: claims.tid, claims };
  }
  return reject(outcome, claims.tid, claims);
}
