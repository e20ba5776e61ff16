import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Passwords of people, kept as scrypt hashes (memory-hard: each guess costs 32 MiB of memory as well as
 * time). The cost is written into every hash, so it can be raised later: a hash verifies with the cost
 * it was made with. The hashing runs off the event loop, on the issuer's own threads (hash-pool.ts).
 *
 * The form is the PHC string format: `$scrypt$ln=15,r=8,p=1$<salt>$<hash>` (salt and hash in base64
 * without padding).
 */

/** The fewest characters (code points) of a password. */
export const PASSWORD_MIN_LENGTH = 12;
/** The most: enough for any passphrase, and a bound on what one request makes the issuer hash. */
export const PASSWORD_MAX_LENGTH = 1024;

/**
 * The cost chosen for this issuer's machines (docs/decisions.md, "Passwords"): N = 2^15, r = 8, p = 1,
 * 32 MiB per hash, about 0.1 s on one core of the 2-core development machine (docs/benchmark.md).
 */
export const SCRYPT_COST = { ln: 15, r: 8, p: 1 } as const;

const SALT_BYTES = 16;
const HASH_BYTES = 32;
/** A stored hash asking for more than this (ln 20: 1 GiB) is refused rather than computed. */
const MAX_LN = 20;

/** scrypt's cost: N = 2^ln, r, p. */
export interface ScryptCost {
  ln: number;
  r: number;
  p: number;
}

/**
 * Derives a key from a password (NFC) and salt: where the hashing runs. The issuer's is its own pool
 * of threads (hash-pool.ts); `deriveOnLibuv` serves tools and benchmarks.
 */
export type Derive = (password: string, salt: Buffer, length: number, cost: ScryptCost) => Promise<Buffer>;

/** scrypt on libuv's thread pool (`crypto.scrypt`). */
export const deriveOnLibuv: Derive = (password, salt, length, cost) => {
  const N = 2 ** cost.ln;
  // scrypt needs 128·N·r bytes; Node refuses more than `maxmem` (32 MiB by default, just too little).
  const maxmem = 128 * N * cost.r + 1024 * 1024;
  return new Promise((resolve, reject) => {
    scrypt(password, salt, length, { N, r: cost.r, p: cost.p, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
};

const derive = (password: string, salt: Buffer, cost: ScryptCost, through: Derive): Promise<Buffer> =>
  through(password.normalize('NFC'), salt, HASH_BYTES, cost);

const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

/** The hash of a password at the current cost, with a fresh salt. */
export async function hashPassword(password: string, through: Derive = deriveOnLibuv): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, SCRYPT_COST, through);
  const { ln, r, p } = SCRYPT_COST;
  return `$scrypt$ln=${ln},r=${r},p=${p}$${b64(salt)}$${b64(key)}`;
}

const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{16,64})\$([A-Za-z0-9+/]{16,128})$/;

function parse(stored: string): { cost: ScryptCost; salt: Buffer; key: Buffer } | null {
  const m = PHC.exec(stored);
  if (!m) return null;
  const cost = { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  if (cost.ln < 1 || cost.ln > MAX_LN || cost.r < 1 || cost.p < 1) return null;
  return { cost, salt: Buffer.from(m[4]!, 'base64'), key: Buffer.from(m[5]!, 'base64') };
}

/** Whether `password` is the one `stored` was made from; the comparison takes one time whatever differs. */
export async function verifyPassword(
  password: string,
  stored: string,
  through: Derive = deriveOnLibuv,
): Promise<boolean> {
  const parsed = parse(stored);
  if (parsed === null) return false;
  const key = await derive(password, parsed.salt, parsed.cost, through);
  return key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
}

/**
 * A hash no password is checked against for real: random bytes in the form of a hash at the current
 * cost. Verifying against it when an address is unknown (or its person has no password yet) costs
 * what a real check costs, so the answer's time does not tell.
 */
export const DECOY_HASH = `$scrypt$ln=${SCRYPT_COST.ln},r=${SCRYPT_COST.r},p=${SCRYPT_COST.p}$${b64(randomBytes(SALT_BYTES))}$${b64(randomBytes(HASH_BYTES))}`;

/** Why a new password is refused, or null when it is long enough. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters`;
  return null;
}
