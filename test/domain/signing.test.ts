import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { checkIn, type CheckInDeps } from '../../src/domain/check-in.ts';
import { FixedClock } from '../../src/domain/clock.ts';
import { type TicketClaims, type TokenRead, TicketSigner } from '../../src/domain/signing.ts';
import { issueTickets, reissueTicket } from '../../src/domain/tickets.ts';
import type { ApiKeyRecord, TicketRecord } from '../../src/store/store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { newApiKey, newEvent, newToken } from '../store/conformance.ts';

const ISSUER = 'https://issuer.example';
const NOW = '2026-06-01T12:00:00.000Z';

/** The same token with one character of its signature changed: still canonical, no longer genuine. */
function forge(token: string): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const swapped = signature[10] === 'A' ? 'B' : 'A';
  return `${header}.${payload}.${signature.slice(0, 10)}${swapped}${signature.slice(11)}`;
}

/** A signer that counts the signature checks it is asked for. */
class CountingSigner extends TicketSigner {
  checks = 0;

  override async read(token: string): Promise<TokenRead> {
    const read = await super.read(token);
    if (!read.ok) return read;
    return {
      ...read,
      signatureValid: () => {
        this.checks += 1;
        return read.signatureValid();
      },
    };
  }
}

describe('TicketSigner.read', () => {
  const store = new SqliteStore(':memory:');
  const signer = new TicketSigner(store, Buffer.alloc(32, 7), new FixedClock(NOW));
  let genuine: string;

  before(async () => {
    await signer.ensureKey();
    const claims: TicketClaims = { v: 1, iss: ISSUER, tid: 'tkt_1', eid: 'evt_1', ticket_type: 'GA', iat: 1 };
    genuine = (await signer.signerForActiveKey()).sign(claims);
  });
  after(() => store.close());

  it('read checks everything but the signature; the signature is checked on demand', async () => {
    const read = await signer.read(forge(genuine));
    assert.equal(read.ok, true, 'a forged signature passes every check but its own');
    assert.equal(read.ok && read.claims.tid, 'tkt_1');
    assert.equal(read.ok && (await read.signatureValid()), false);
    const real = await signer.read(genuine);
    assert.equal(real.ok && (await real.signatureValid()), true);
  });

  it('read refuses, without a signature check, another version, another algorithm, an unknown or removed kid', async () => {
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const [header, payload, signature] = genuine.split('.') as [string, string, string];
    const kid = (JSON.parse(Buffer.from(header, 'base64url').toString()) as { kid: string }).kid;
    assert.equal((await signer.read(`${header}.${b64({ v: 2, tid: 'tkt_1' })}.${signature}`)).ok, false);
    assert.deepEqual(await signer.read(`${b64({ alg: 'HS256', kid })}.${payload}.${signature}`), {
      ok: false,
      reason: 'unsupported alg',
    });
    assert.deepEqual(await signer.read(`${b64({ alg: 'EdDSA', kid: 'nope' })}.${payload}.${signature}`), {
      ok: false,
      reason: 'unknown kid',
    });
    await signer.rotate();
    assert.equal(await signer.remove(kid), 'removed');
    assert.deepEqual(await signer.read(genuine), { ok: false, reason: 'removed kid' });
  });
});

describe('check-in and the signature check', () => {
  const store = new SqliteStore(':memory:');
  const clock = new FixedClock(NOW);
  const signer = new CountingSigner(store, Buffer.alloc(32, 7), clock);
  const deps: CheckInDeps = { store, clock, signer, issuer: ISSUER };
  let key: ApiKeyRecord;
  let eid: string;
  let tickets: TicketRecord[];

  before(async () => {
    await signer.ensureKey();
    const event = newEvent();
    eid = event.eid;
    await store.events.createEvent(event);
    const enrolment = newToken(eid, { created_at: NOW, expires_at: '2026-06-02T00:00:00.000Z' });
    await store.scanners.createEnrollmentToken(enrolment);
    const redeemed = await store.scanners.redeemEnrollmentToken(enrolment.token_hash, NOW, newApiKey());
    assert.equal(redeemed.kind, 'enrolled');
    key = redeemed.kind === 'enrolled' ? redeemed.key : assert.fail();
    ({ created: tickets } = await issueTickets({ store, clock, signer, issuer: ISSUER }, eid, [
      { holder_name: 'A', ticket_type: 'GA' },
      { holder_name: 'B', ticket_type: 'GA' },
      { holder_name: 'C', ticket_type: 'GA' },
    ]));
  });
  after(() => store.close());

  /** Checks a token in; answers the outcome and how many signature checks it took. */
  async function scan(tid: string, token: string, idempotencyKey = randomUUID()) {
    const before = signer.checks;
    const request = {
      tid,
      eid,
      scanned_at: NOW,
      scanner_id: key.scanner_id,
      idempotency_key: idempotencyKey,
      ticket_token: token,
    };
    const { answer, replay } = await checkIn(deps, key, request, undefined);
    const body = answer.body as { status?: string; error?: { code: string } };
    return { status: body.status ?? body.error?.code, replay, checks: signer.checks - before };
  }

  it('the ticket’s stored token is admitted without a signature check, and so is its replay', async () => {
    const [a] = tickets as [TicketRecord];
    const idempotencyKey = randomUUID();
    assert.deepEqual(await scan(a.tid, a.ticket_token, idempotencyKey), { status: 'valid', replay: false, checks: 0 });
    assert.deepEqual(await scan(a.tid, a.ticket_token, idempotencyKey), { status: 'valid', replay: true, checks: 0 });
    assert.deepEqual(await scan(a.tid, a.ticket_token), { status: 'already_used', replay: false, checks: 0 });
  });

  it('a forged token is checked and refused, and the ticket stays unused', async () => {
    const [, b] = tickets as [TicketRecord, TicketRecord];
    assert.deepEqual(await scan(b.tid, forge(b.ticket_token)), {
      status: 'invalid_signature',
      replay: false,
      checks: 1,
    });
    assert.equal((await store.tickets.getTicket(b.tid))!.checked_in_at, null);
    assert.deepEqual(await scan(b.tid, b.ticket_token), { status: 'valid', replay: false, checks: 0 });
  });

  it('a superseded token is checked, and genuine, so it is revoked; a forged token of an unknown tid is invalid', async () => {
    const [, , c] = tickets as [TicketRecord, TicketRecord, TicketRecord];
    const reissued = await reissueTicket({ store, clock, signer, issuer: ISSUER }, c.tid);
    assert.deepEqual(await scan(c.tid, c.ticket_token), { status: 'revoked', replay: false, checks: 1 });
    assert.deepEqual(await scan(c.tid, reissued.ticket_token), { status: 'valid', replay: false, checks: 0 });
    const ghost = forge(reissued.ticket_token);
    assert.deepEqual(await scan('01JZZZZZZZZZZZZZZZZZZZZZZZ', ghost), {
      status: 'invalid_signature',
      replay: false,
      checks: 1,
    });
  });
});
