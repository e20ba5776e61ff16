import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign as signBytes,
  verify as verifySignature,
} from 'node:crypto';
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader } from 'jose';
import type { SigningKeyRecord, Store } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { FreshCache } from './fresh-cache.ts';
import { seal, unseal } from './key-encryption.ts';
import { toStored } from './time.ts';
import { noteAudit } from '../store/audit-context.ts';

/** The ticket-token protocol versions this issuer reads and writes. */
export const TOKEN_VERSIONS = [1] as const;

/** The signed claims of a ticket token. */
export interface TicketClaims {
  v: number;
  iss: string;
  tid: string;
  eid: string;
  ticket_type: string;
  iat: number;
  /** The ticket's `valid_from` (Unix seconds), when it has one: not valid for entry before it. */
  nbf?: number;
  exp?: number;
  /** The token's own id; absent on tokens issued before token ids existed. */
  jti?: string;
}

/** A public signing key as published in the discovery document. */
export interface PublicJwk {
  kty: string;
  crv: string;
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

/** A token read up to its signature: its unverified claims and the check of its signature, or why it cannot be. */
export type TokenRead =
  | { ok: true; claims: TicketClaims; signatureValid: () => Promise<boolean> }
  | { ok: false; reason: string }
  | { ok: false; reason: 'unsupported_version'; version: unknown };

/**
 * How long a verifying key's record is trusted without reading the store again. Within one
 * instance a removal is seen at once (see `remove`); another instance sees it within this time.
 */
const KEY_RECORD_TTL_MS = 1000;

const base64url = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

/** Signs ticket tokens with the active Ed25519 key and verifies them against every kept key. */
export class TicketSigner {
  private readonly privateKeys = new Map<string, KeyObject>();
  private readonly publicKeys = new Map<string, KeyObject>();
  /** Only kids that exist are remembered: made-up kids must not fill the memory. */
  private readonly records = new FreshCache<string, SigningKeyRecord | null>({
    ttlMs: KEY_RECORD_TTL_MS,
    keep: (record) => record !== null,
  });

  constructor(
    private readonly store: Store,
    private readonly kek: Buffer,
    private readonly clock: Clock,
  ) {}

  /** Makes a signing key on first start (concurrent instances agree on one). */
  async ensureKey(): Promise<void> {
    const active =
      (await this.store.signingKeys.getActiveSigningKey()) ??
      (await this.store.signingKeys.ensureSigningKey(await this.generate()));
    try {
      this.privateKey(active);
    } catch {
      // Fail at start, not at the first ticket: another instance or an earlier start used another key.
      throw new Error(
        'the key-encryption key does not open the stored signing keys; set KEY_ENCRYPTION_KEY to the one this database was created with',
      );
    }
  }

  /** Makes a new active key; the previous one is retired but keeps verifying until removed. */
  async rotate(): Promise<SigningKeyRecord> {
    const key = await this.generate();
    noteAudit({ target: key.kid });
    await this.store.signingKeys.addSigningKey(key);
    return key;
  }

  /**
   * Signs claims with the active key; one key lookup for a whole batch. A compact JWS (RFC 7515)
   * made with node:crypto directly: a general JOSE library imports the key again for every
   * signature, which made bulk issue several times slower and its memory grow with the batch.
   */
  async signerForActiveKey(): Promise<{ kid: string; sign: (claims: TicketClaims) => string }> {
    const record = await this.store.signingKeys.getActiveSigningKey();
    if (!record) throw new Error('no active signing key');
    const privateKey = this.privateKey(record);
    const header = base64url(JSON.stringify({ alg: 'EdDSA', kid: record.kid, typ: 'JWT' }));
    return {
      kid: record.kid,
      sign: (claims) => {
        const signingInput = `${header}.${base64url(JSON.stringify(claims))}`;
        return `${signingInput}.${signBytes(null, Buffer.from(signingInput), privateKey).toString('base64url')}`;
      },
    };
  }

  /**
   * Reads a token and checks everything but its signature: its form, its protocol version, its
   * algorithm, and the key its `kid` names (removed keys verify nothing). The version is read first,
   * signature or not: a token of another version may be signed in another way, and its scanner needs
   * to hear that the version is the problem. The signature is checked by `signatureValid`, when the
   * caller needs it: a token the issuer stored itself does not (see `checkIn`).
   */
  async read(token: string): Promise<TokenRead> {
    let header: { alg?: unknown; kid?: unknown };
    let unverified: { v?: unknown };
    try {
      header = decodeProtectedHeader(token);
      unverified = decodeJwt(token);
    } catch {
      return { ok: false, reason: 'malformed token' };
    }
    if (unverified.v !== undefined && !TOKEN_VERSIONS.includes(unverified.v as 1)) {
      return { ok: false, reason: 'unsupported_version', version: unverified.v };
    }
    if (header.alg !== 'EdDSA') return { ok: false, reason: 'unsupported alg' };
    if (typeof header.kid !== 'string') return { ok: false, reason: 'missing kid' };
    // Key ids are printable ASCII; anything else cannot name a key and must not reach the store.
    if (!/^[\x21-\x7e]{1,128}$/.test(header.kid)) return { ok: false, reason: 'unknown kid' };
    const record = await this.verifyingKey(header.kid);
    if (!record) return { ok: false, reason: 'unknown kid' };
    if (record.removed_at !== null) return { ok: false, reason: 'removed kid' };
    const key = this.publicKey(record);
    return { ok: true, claims: unverified as TicketClaims, signatureValid: () => verifiesWith(token, key) };
  }

  /** Marks a retired key removed (see `Store.removeSigningKey`); this instance stops verifying with it at once. */
  async remove(kid: string): Promise<'removed' | 'active' | 'unknown'> {
    const outcome = await this.store.signingKeys.removeSigningKey(kid, toStored(this.clock.now()));
    this.records.forget(kid);
    return outcome;
  }

  /** The key record a token names, trusted for a second per kid (see FreshCache). */
  private verifyingKey(kid: string): Promise<SigningKeyRecord | null> {
    return this.records.get(kid, () => this.store.signingKeys.getSigningKey(kid));
  }

  /** The public keys scanners may verify with: every key not removed, newest first. */
  async publishedKeys(): Promise<PublicJwk[]> {
    const keys = await this.store.signingKeys.listSigningKeys();
    return keys.filter((k) => k.removed_at === null).map(toPublicJwk);
  }

  private async generate(): Promise<SigningKeyRecord> {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const jwk = publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string };
    const kid = await calculateJwkThumbprint({ kty: jwk.kty, crv: jwk.crv, x: jwk.x });
    const der = privateKey.export({ format: 'der', type: 'pkcs8' });
    this.privateKeys.set(kid, privateKey);
    return {
      kid,
      public_jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x },
      private_key_enc: seal(this.kek, der, kid),
      created_at: toStored(this.clock.now()),
      retired_at: null,
      removed_at: null,
    };
  }

  private privateKey(record: SigningKeyRecord): KeyObject {
    let key = this.privateKeys.get(record.kid);
    if (!key) {
      key = createPrivateKey({
        key: unseal(this.kek, record.private_key_enc, record.kid),
        format: 'der',
        type: 'pkcs8',
      });
      this.privateKeys.set(record.kid, key);
    }
    return key;
  }

  private publicKey(record: SigningKeyRecord): KeyObject {
    let key = this.publicKeys.get(record.kid);
    if (!key) {
      key = createPublicKey({ key: record.public_jwk, format: 'jwk' });
      this.publicKeys.set(record.kid, key);
    }
    return key;
  }
}

/** An Ed25519 signature is 64 bytes: 86 base64url characters, canonical (no padding, no stray bits). */
const SIGNATURE = /^[A-Za-z0-9_-]{85}[AQgw]$/;

/**
 * Checks a compact JWS's Ed25519 signature with node:crypto and a cached key (about half the cost of
 * a general JOSE verification; the header was already read and its alg checked). Only the canonical
 * encoding of a signature is accepted, so that one token has one spelling. With a callback, node
 * runs the check on its thread pool: the event loop goes on serving other requests meanwhile.
 */
function verifiesWith(token: string, key: KeyObject): Promise<boolean> {
  const [header, payload, signature, extra] = token.split('.');
  if (extra !== undefined || !header || !payload || !signature || !SIGNATURE.test(signature)) {
    return Promise.resolve(false);
  }
  return new Promise((resolve) => {
    verifySignature(null, Buffer.from(`${header}.${payload}`), key, Buffer.from(signature, 'base64url'), (error, ok) =>
      resolve(error === null && ok),
    );
  });
}

/** The published form of a stored key: public parts only. */
export function toPublicJwk(record: SigningKeyRecord): PublicJwk {
  const { kty, crv, x } = record.public_jwk as { kty: string; crv: string; x: string };
  return { kty, crv, x, kid: record.kid, alg: 'EdDSA', use: 'sig' };
}
