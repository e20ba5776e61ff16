import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ulid } from 'ulid';

const POOL_WORDS = 1024;
let pool = new Uint32Array(0);
let drawn = 0;

/**
 * The CSPRNG as the fraction ULID's encoder wants, drawn from a pool refilled 4 KiB at a time: the
 * library's default asks the CSPRNG once per character, which made a bulk import of 10,000 tickets
 * spend most of its time there. A 32-bit draw over 2^32 gives each of the 32 characters exactly
 * the same chance.
 */
function pooledRandom(): number {
  if (drawn >= pool.length) {
    pool = new Uint32Array(randomBytes(POOL_WORDS * 4).buffer);
    drawn = 0;
  }
  return pool[drawn++]! / 2 ** 32;
}

// Not the monotonic factory: within one millisecond it increments the random part, so a bulk
// import would hand out consecutive ids and a holder could guess a neighbour's ticket id.
const newUlid = (): string => ulid(undefined, pooledRandom);

/** A ticket id: a bare ULID. */
export const newTicketId = (): string => newUlid();
/** An event id: `evt_` + ULID. */
export const newEventId = (): string => `evt_${newUlid()}`;
/** An API key id, safe to log: `sck_` + ULID. */
export const newApiKeyId = (): string => `sck_${newUlid()}`;
/** A webhook endpoint id: `whk_` + ULID. */
export const newWebhookId = (): string => `whk_${newUlid()}`;
/** An enrolment token id, safe to log: `set_` + ULID. */
export const newEnrollmentTokenId = (): string => `set_${newUlid()}`;
/** A person's id: `usr_` + ULID. */
export const newUserId = (): string => `usr_${newUlid()}`;
/** A personal API token's id, safe to log: `tok_` + ULID. */
export const newPersonalTokenId = (): string => `tok_${newUlid()}`;

/** A ticket token's id (`jti`): 128 random bits, base64url. */
export const newTokenId = (): string => randomBytes(16).toString('base64url');

/** The prefixes of the secrets the issuer hands out. */
export const API_KEY_PREFIX = 'sk_live_';
export const ENROLLMENT_TOKEN_PREFIX = 'st_';
export const ADMIN_TOKEN_PREFIX = 'at_';
/** A person's API token (the invitation's secret, `inv_`, is in `people.ts`). */
export const PERSONAL_TOKEN_PREFIX = 'iat_';

/** A fresh secret: the prefix and 256 bits from the CSPRNG, base64url. */
export function newSecret(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

/** The well-formed shape of a secret with this prefix (43 base64url characters after it). */
export function isSecretShaped(prefix: string, value: string): boolean {
  return value.startsWith(prefix) && /^[A-Za-z0-9_-]{43}$/.test(value.slice(prefix.length));
}

/**
 * What the store keeps instead of a secret. The secrets carry 256 random bits, so a plain
 * SHA-256 cannot be reversed or brute-forced; a slow password hash would only cost latency.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Compares two hex hashes in constant time. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** A well-formed UUID (any version), lower-cased. */
export function normalizeUuid(value: string): string | null {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value) ? value.toLowerCase() : null;
}
