/** Reading a ticket token: the versions this scanner reads, the issuer's keys, a token's unverified parts. */
import type { PublicJwk } from '@ticket-issuer/protocol';
// jose's subpath entries load a few modules instead of the whole library: a CLI run starts faster.
import { decodeProtectedHeader } from 'jose/decode/protected_header';
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
