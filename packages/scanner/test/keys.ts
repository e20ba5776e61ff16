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

/** A key and tokens of tickets T1–T3 (with jti `jti-T1`…) and of another event (`OTHER`), as the unit tests share them. */
export async function ticketFixture(): Promise<{ key: TestKey; tokens: Record<string, string> }> {
  const key = await testKey();
  const tokens: Record<string, string> = {};
  for (const tid of ['T1', 'T2', 'T3']) tokens[tid] = await key.sign(claims(tid, { jti: `jti-${tid}` }));
  tokens.OTHER = await key.sign(claims('T9', { eid: 'evt_OTHER' }));
  return { key, tokens };
}
