import { createHash, randomBytes } from 'node:crypto';
import { CROCKFORD_ALPHABET, SHORT_CODE_LENGTH } from '@ticket-issuer/protocol';

// How a code is read and digested is the protocol's, shared with the devices.
export {
  CROCKFORD_ALPHABET,
  normalShortCode,
  SHORT_CODE_LENGTH,
  shortCodeDigest,
  shownShortCode,
} from '@ticket-issuer/protocol';

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

/**
 * The protocol's `shortCodeDigest` computed with node's hash at once: the same lowercase hex SHA-256 of
 * the kept code, without Web Crypto's promise per code. A codes page digests up to 1,000 codes, and
 * every device without the roster pages through the whole event at its first sync; Web Crypto took
 * about 65 us a code there, this about 4 (a test holds the two equal).
 */
export const codeDigestNow = (code: string): string => createHash('sha256').update(code).digest('hex');
