import { randomBytes } from 'node:crypto';
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
