import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  CROCKFORD_ALPHABET,
  SHORT_CODE_LENGTH,
  codeDigestNow,
  newShortCodes,
  shortCodeDigest,
} from '../../src/domain/short-codes.ts';

const kept = fc
  .array(fc.constantFrom(...CROCKFORD_ALPHABET), { minLength: SHORT_CODE_LENGTH, maxLength: SHORT_CODE_LENGTH })
  .map((chars) => chars.join(''));

test("the issuer's codes list digests a code as the devices do", async () => {
  await fc.assert(
    fc.asyncProperty(kept, async (code) => {
      assert.equal(codeDigestNow(code), await shortCodeDigest(code));
    }),
    { numRuns: 300 },
  );
  for (const code of newShortCodes(50)) assert.equal(codeDigestNow(code), await shortCodeDigest(code));
});

test("a code's digest is the contract's: lowercase hex SHA-256 of its ten characters", () => {
  // printf K7M2P9QX4T | sha256sum
  assert.equal(codeDigestNow('K7M2P9QX4T'), '5a51569b2f9c08594c3cd82fd08c97f1f4d40faacb192b97c765d880ec179ecc');
});
