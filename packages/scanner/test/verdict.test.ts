import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { CASE_GATES, VERDICT_CASES, type VerdictCase } from '@ticket-issuer/protocol';
import { decideOffline, KeyRing, type LocalKnowledge } from '../src/index.ts';
import { decideExitOffline } from '../src/verdict.ts';
import { claims, EID, ISS, type TestKey, testKey } from './keys.ts';

const SCAN_TIME = new Date('2026-06-01T18:00:00Z');
const SCAN_S = SCAN_TIME.getTime() / 1000;
const TID = '01JTICKET00000000000000000';

let issuerKey: TestKey;
let forger: TestKey;
let keys: KeyRing;

before(async () => {
  issuerKey = await testKey();
  // A forger who claims the issuer's kid: the kid is known, the signature is not the issuer's.
  forger = await testKey(issuerKey.kid);
  keys = new KeyRing([issuerKey.jwk]);
});

function knowledge(parts: Partial<Record<keyof LocalKnowledge, unknown>> = {}): LocalKnowledge {
  return {
    revoked: new Set<string>(),
    superseded: new Map<string, Set<string | null>>(),
    checkedIn: new Set<string>(),
    admitted: new Set<string>(),
    ...parts,
  } as LocalKnowledge;
}

const decide = (token: string, known: LocalKnowledge = knowledge()) =>
  decideOffline({ token, eid: EID, iss: ISS, scannedAt: SCAN_TIME, keys, knowledge: known });

/** Builds the token and the device's knowledge a table case describes. */
async function caseToken(c: VerdictCase, usedBy: 'feed' | 'device') {
  const jti = 'jti-current';
  const payload = claims(TID, {
    jti,
    ...(c.event === 'other' ? { eid: 'evt_01OTHEREVENT0000000000000' } : {}),
    ...(c.expired ? { exp: SCAN_S - 60 } : { exp: SCAN_S + 3600 }),
  });
  const token = await (c.signature === 'good' ? issuerKey : forger).sign(payload);
  const used = new Set(c.checkedIn ? [TID] : []);
  const known = knowledge({
    revoked: new Set(c.revoked ? [TID] : []),
    superseded: new Map(c.superseded ? [[TID, new Set([jti])]] : []),
    checkedIn: usedBy === 'feed' ? used : new Set(),
    admitted: usedBy === 'device' ? used : new Set(),
    out: new Set(c.wentOut ? [TID] : []),
    reentry: c.reentry === true,
  });
  return { token, known };
}

describe('the offline verdict judges the shared table of cases as the issuer does', () => {
  for (const usedBy of ['feed', 'device'] as const) {
    for (const c of VERDICT_CASES) {
      test(`${c.name} -> ${c.outcome} (use known from the ${usedBy})`, async () => {
        const { token, known } = await caseToken(c, usedBy);
        const verdict = await (c.exit ? decideExitOffline : decideOffline)({
          token,
          eid: EID,
          iss: ISS,
          scannedAt: SCAN_TIME,
          keys,
          knowledge: known,
          gate: CASE_GATES[c.gate],
        });
        assert.equal(verdict.reason, c.outcome);
        const letOut = c.outcome === 'checked_out' || (c.exit === true && c.outcome === 'revoked');
        assert.equal(verdict.verdict, c.outcome === 'valid' ? 'admit' : letOut ? 'exit' : 'reject');
        assert.equal(verdict.tid, TID);
      });
    }
  }
});

describe('invalid_signature covers every token the cached JWKS cannot vouch for', () => {
  test('input that is not a compact JWS is invalid_signature with no tid', async () => {
    for (const input of ['', 'hello', 'a.b', 'a.b.c.d.e', '!!!.###.$$$', 'eyJhbGciOiJFZERTQSJ9.bm90IGpzb24.c2ln']) {
      const verdict = await decide(input);
      assert.deepEqual(
        { ...verdict },
        {
          verdict: 'reject',
          reason: 'invalid_signature',
          tid: null,
          claims: null,
          refusal: null,
          attention: false,
          checkin_texts: [],
        },
        input,
      );
    }
  });

  test('a kid the JWKS does not hold is invalid_signature, and the tid is still read', async () => {
    const stranger = await testKey();
    const verdict = await decide(await stranger.sign(claims(TID)));
    assert.equal(verdict.reason, 'invalid_signature');
    assert.equal(verdict.tid, TID);
    assert.equal(verdict.claims, null);
  });

  test('a tampered payload is invalid_signature', async () => {
    const [header, , signature] = (await issuerKey.sign(claims(TID))).split('.');
    const forged = Buffer.from(JSON.stringify(claims('01JSOMEONEELSE000000000000'))).toString('base64url');
    assert.equal((await decide(`${header}.${forged}.${signature}`)).reason, 'invalid_signature');
  });

  test('an alg other than EdDSA is invalid_signature even with a known kid', async () => {
    const token = await issuerKey.sign(claims(TID));
    const [, payload, signature] = token.split('.');
    const header = Buffer.from(JSON.stringify({ alg: 'none', kid: issuerKey.kid })).toString('base64url');
    assert.equal((await decide(`${header}.${payload}.${signature}`)).reason, 'invalid_signature');
  });

  test('an unsupported token version `v` is invalid_signature', async () => {
    assert.equal((await decide(await issuerKey.sign(claims(TID, { v: 2 })))).reason, 'invalid_signature');
  });

  test('a token naming another issuer is invalid_signature', async () => {
    assert.equal(
      (await decide(await issuerKey.sign(claims(TID, { iss: 'https://other.test' })))).reason,
      'invalid_signature',
    );
  });
});

describe('a reissued ticket supersedes exactly the tokens it replaced', () => {
  const superseded = (...jtis: (string | null)[]) => knowledge({ superseded: new Map([[TID, new Set(jtis)]]) });

  test('the superseded jti is revoked; the new jti of the same ticket is admitted', async () => {
    const known = superseded('old');
    assert.equal((await decide(await issuerKey.sign(claims(TID, { jti: 'old' })), known)).reason, 'revoked');
    assert.equal((await decide(await issuerKey.sign(claims(TID, { jti: 'new' })), known)).reason, 'valid');
  });

  test('a jti null supersedes every token of that tid without a jti, and no token with one', async () => {
    const known = superseded(null);
    assert.equal((await decide(await issuerKey.sign(claims(TID)), known)).reason, 'revoked');
    assert.equal((await decide(await issuerKey.sign(claims(TID, { jti: 'new' })), known)).reason, 'valid');
  });

  test('a superseded jti leaves a token without a jti untouched', async () => {
    assert.equal((await decide(await issuerKey.sign(claims(TID)), superseded('old'))).reason, 'valid');
  });

  test('supersession of another ticket changes nothing', async () => {
    const known = knowledge({ superseded: new Map([['01JOTHER', new Set([null, 'old'])]]) });
    assert.equal((await decide(await issuerKey.sign(claims(TID, { jti: 'old' })), known)).reason, 'valid');
  });
});

describe('expiry is judged at the scan time', () => {
  test('exp equal to the scan time is expired; one second later is valid; no exp never expires', async () => {
    assert.equal((await decide(await issuerKey.sign(claims(TID, { exp: SCAN_S })))).reason, 'expired');
    assert.equal((await decide(await issuerKey.sign(claims(TID, { exp: SCAN_S + 1 })))).reason, 'valid');
    assert.equal((await decide(await issuerKey.sign(claims(TID)))).reason, 'valid');
  });
});

test('a retired key still in the JWKS verifies its tokens; keys are imported once', async () => {
  const retired = await testKey();
  const ring = new KeyRing([issuerKey.jwk, retired.jwk]);
  assert.equal(ring.size, 2);
  const token = await retired.sign(claims(TID));
  const known = knowledge();
  const first = await decideOffline({ token, eid: EID, iss: ISS, scannedAt: SCAN_TIME, keys: ring, knowledge: known });
  assert.equal(first.reason, 'valid');
  assert.equal(ring.key(retired.kid), ring.key(retired.kid));
});
