import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HolderLinks } from '../../src/domain/holder-links.ts';
import { newTicketId } from '../../src/domain/ids.ts';

const kek = Buffer.alloc(32, 7);
const links = new HolderLinks(kek, 'https://issuer.test');

describe('holder links: a token per ticket, opened back to its tid with the issuer’s key only', () => {
  it('a tid’s token is 22 base64url characters (128 bits), the same each time, and opens to that tid', () => {
    for (let i = 0; i < 200; i++) {
      const tid = newTicketId();
      const token = links.token(tid)!;
      assert.match(token, /^[A-Za-z0-9_-]{22}$/);
      assert.equal(links.token(tid), token);
      assert.equal(links.tidOf(token), tid);
      assert.equal(links.url(tid), `https://issuer.test/t/${token}`);
    }
  });

  it('tickets issued in the same millisecond get unrelated tokens (no shared prefix beyond chance)', () => {
    const tokens = Array.from({ length: 100 }, () => links.token(newTicketId())!);
    assert.equal(new Set(tokens).size, 100);
    const sharedFirst4 = tokens.filter((t) => t.slice(0, 4) === tokens[0]!.slice(0, 4)).length;
    assert.ok(sharedFirst4 < 5, 'tids of one millisecond share their first 10 characters; tokens must not');
  });

  it('another key-encryption key gives other tokens, and cannot open this issuer’s', () => {
    const other = new HolderLinks(Buffer.alloc(32, 8), 'https://issuer.test');
    const tid = newTicketId();
    assert.notEqual(other.token(tid), links.token(tid));
    assert.notEqual(other.tidOf(links.token(tid)!), tid);
  });

  it('a string that is not a token opens to nothing', () => {
    const token = links.token(newTicketId())!;
    for (const wrong of ['', 'short', `${token}A`, token.slice(0, 21), `${token.slice(0, 21)}!`, '../../etc/passwd']) {
      assert.equal(links.tidOf(wrong), null, wrong);
    }
    // The same 128 bits spelt with non-zero padding bits are not the canonical token.
    const last = token.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = token.slice(0, 21) + alphabet[(alphabet.indexOf(last) & ~3) | ((alphabet.indexOf(last) + 1) & 3)];
    assert.equal(links.tidOf(sibling), null);
    assert.equal(links.token('not-a-ulid'), null);
  });
});
