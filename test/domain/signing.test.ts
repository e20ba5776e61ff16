import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FixedClock } from '../../src/domain/clock.ts';
import { type TicketClaims, TicketSigner } from '../../src/domain/signing.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';

const ISSUER = 'https://issuer.example';

/** The same token with one character of its signature changed: still canonical, no longer genuine. */
function forge(token: string): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const swapped = signature[10] === 'A' ? 'B' : 'A';
  return `${header}.${payload}.${signature.slice(0, 10)}${swapped}${signature.slice(11)}`;
}

describe('TicketSigner.verify and a token the issuer stored itself', () => {
  const store = new SqliteStore(':memory:');
  const signer = new TicketSigner(store, Buffer.alloc(32, 7), new FixedClock('2026-06-01T12:00:00Z'));
  let genuine: string;
  let forged: string;

  before(async () => {
    await signer.ensureKey();
    const claims: TicketClaims = { v: 1, iss: ISSUER, tid: 'tkt_1', eid: 'evt_1', ticket_type: 'GA', iat: 1 };
    genuine = (await signer.signerForActiveKey()).sign(claims);
    forged = forge(genuine);
  });
  after(() => store.close());

  it('a token that differs from the stored one has its signature checked', async () => {
    assert.equal((await signer.verify(genuine)).ok, true);
    assert.equal((await signer.verify(genuine, null)).ok, true);
    assert.deepEqual(await signer.verify(forged), { ok: false, reason: 'bad signature' });
    assert.deepEqual(await signer.verify(forged, genuine), { ok: false, reason: 'bad signature' });
    assert.deepEqual(await signer.verify(forged, null), { ok: false, reason: 'bad signature' });
  });

  it('the stored token itself skips the signature check: only the issuer writes what is stored', async () => {
    // A signature that does not verify proves the check was skipped; the store never holds such a token.
    const check = await signer.verify(forged, forged);
    assert.equal(check.ok, true);
    assert.equal(check.ok && check.claims.tid, 'tkt_1');
  });

  it('every other check still applies to the stored token: version, algorithm, kid and its standing', async () => {
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const [header, , signature] = genuine.split('.') as [string, string, string];
    const kid = (JSON.parse(Buffer.from(header, 'base64url').toString()) as { kid: string }).kid;
    const otherVersion = `${header}.${b64({ v: 2, tid: 'tkt_1' })}.${signature}`;
    assert.equal((await signer.verify(otherVersion, otherVersion)).ok, false);
    const otherAlg = `${b64({ alg: 'HS256', kid })}.${genuine.split('.')[1]}.${signature}`;
    assert.deepEqual(await signer.verify(otherAlg, otherAlg), { ok: false, reason: 'unsupported alg' });
    const unknownKid = `${b64({ alg: 'EdDSA', kid: 'nope' })}.${genuine.split('.')[1]}.${signature}`;
    assert.deepEqual(await signer.verify(unknownKid, unknownKid), { ok: false, reason: 'unknown kid' });

    await signer.rotate();
    assert.equal(await signer.remove(kid), 'removed');
    assert.deepEqual(await signer.verify(genuine, genuine), { ok: false, reason: 'removed kid' });
  });
});
