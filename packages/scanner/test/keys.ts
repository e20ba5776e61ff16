import type { PublicJwk, TicketClaims } from '@ticket-issuer/protocol';
import { calculateJwkThumbprint, CompactSign, exportJWK, generateKeyPair } from 'jose';

export const ISS = 'https://issuer.test';
export const EID = 'evt_01SCANNERTEST0000000000000';

/** An Ed25519 signing key as the issuer holds it, and its public JWK as discovery publishes it. */
export interface TestKey {
  kid: string;
  jwk: PublicJwk;
  sign(claims: object, header?: Record<string, unknown>): Promise<string>;
}

/** A new Ed25519 key; `kid` overrides the thumbprint (a forger may claim any kid). */
export async function testKey(kid?: string): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const exported = await exportJWK(publicKey);
  const thumbprint = await calculateJwkThumbprint({ kty: exported.kty!, crv: exported.crv!, x: exported.x! });
  const keyId = kid ?? thumbprint;
  return {
    kid: keyId,
    jwk: { kty: 'OKP', crv: 'Ed25519', x: exported.x!, kid: keyId, alg: 'EdDSA', use: 'sig' },
    sign: (claims, header = {}) =>
      new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
        .setProtectedHeader({ alg: 'EdDSA', kid: keyId, typ: 'JWT', ...header })
        .sign(privateKey),
  };
}

/** Claims of a fresh ticket of the test event. */
export function claims(tid: string, extra: Partial<TicketClaims> = {}): TicketClaims {
  return { v: 1, iss: ISS, tid, eid: EID, ticket_type: 'GA', iat: Math.floor(Date.now() / 1000) - 3600, ...extra };
}
