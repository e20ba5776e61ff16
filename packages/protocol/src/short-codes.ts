/**
 * Short codes, the ticket's typed backup for a QR code that will not scan: how a typed code is read
 * and the digest that names it without telling it. The issuer and every device use these, so a code
 * typed at any gate is read one way.
 */

/** Crockford's base32: digits and letters but I, L, O and U (read as 1, 1, 0 or mistaken for V). */
export const CROCKFORD_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The characters of a short code (50 random bits), kept without the dash. */
export const SHORT_CODE_LENGTH = 10;

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

/**
 * What devices without the roster resolve a typed code by: the lowercase hex SHA-256 of its kept form
 * (10 characters, upper case, no dash). Web Crypto's digest, so that Node and the browser share it.
 */
export async function shortCodeDigest(code: string): Promise<string> {
  const hash = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(code));
  return Array.from(new Uint8Array(hash), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
