import { createHash, randomBytes } from 'node:crypto';

/** Crockford's base32: digits and letters but I, L, O and U (read as 1, 1, 0 or mistaken for V). */
export const CROCKFORD_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The characters of a short code (50 random bits), kept without the dash. */
export const SHORT_CODE_LENGTH = 10;

/**
 * `count` new short codes, each of 10 characters drawn from the CSPRNG (one byte a character, its low
 * five bits: 256 is a multiple of 32, so every character is equally likely). Random, never derived
 * from the tid: a code tells nothing of its ticket, nor of its neighbours.
 */
export function newShortCodes(count: number): string[] {
  const bytes = randomBytes(count * SHORT_CODE_LENGTH);
  const codes: string[] = [];
  for (let n = 0; n < count; n += 1) {
    let code = '';
    for (let i = 0; i < SHORT_CODE_LENGTH; i += 1) code += CROCKFORD_ALPHABET[bytes[n * SHORT_CODE_LENGTH + i]! & 31];
    codes.push(code);
  }
  return codes;
}

/** A kept code as people read it: `XXXXX-XXXXX`. */
export const shownShortCode = (code: string): string => `${code.slice(0, 5)}-${code.slice(5)}`;

const READ_AS: Record<string, string> = { I: '1', L: '1', O: '0' };
const KEPT_SHAPE = new RegExp(`^[${CROCKFORD_ALPHABET}]{${SHORT_CODE_LENGTH}}$`);

/**
 * A code as someone typed it, in its kept form: case, dashes and spaces ignored, and Crockford's
 * readings of I and L as 1, O as 0. Null when what is left cannot be a code (an answer like an
 * unknown ticket's, not a hint about which characters are wrong).
 */
export function normalShortCode(typed: string): string | null {
  const code = typed
    .toUpperCase()
    .replace(/[\s-]+/g, '')
    .replace(/[ILO]/g, (c) => READ_AS[c]!);
  return KEPT_SHAPE.test(code) ? code : null;
}

/** What devices without the roster resolve a typed code by: lowercase hex SHA-256 of its 10 characters. */
export const shortCodeDigest = (code: string): string => createHash('sha256').update(code).digest('hex');
