import { newShortCodes } from '../../src/domain/short-codes.ts';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { after, before, describe, it } from 'node:test';
import { newEventId, newTicketId } from '../../src/domain/ids.ts';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import type { CheckInAttempt, CheckInVerdict, SigningKeyRecord, TicketRecord } from '../../src/store/store.ts';
import { ADMIN_URL, freshDatabase, REQUIRE_SERVICES, shown, unreachableBecause } from '../helpers/services.ts';
import { storeConformance } from './conformance.ts';

const problem = await unreachableBecause();
let skip: string | undefined;
if (problem !== null) {
  const message = `PostgreSQL not reachable at ${shown(ADMIN_URL)} (${problem})`;
  if (REQUIRE_SERVICES) {
    it('PostgreSQL is reachable (REQUIRE_SERVICES=1)', () => assert.fail(message));
  } else {
    skip = `${message}; set TEST_DATABASE_URL or start PostgreSQL`;
    process.stderr.write(`\n!!! ${message}: PostgreSQL store tests SKIPPED\n\n`);
  }
}

let suiteDatabase: { url: string; drop: () => Promise<void> } | null = null;
storeConformance(
  'PostgresStore',
  async () => {
    suiteDatabase = await freshDatabase();
    return PostgresStore.open(suiteDatabase.url);
  },
  async () => suiteDatabase?.drop(),
  skip === undefined ? {} : { skip },
);

/** A decider like the domain's: the first scan of an unused ticket checks it in. */
function gateDecider(checkInAt: string) {
  return (ticket: TicketRecord | null): CheckInVerdict => {
    const fresh = ticket !== null && ticket.checked_in_at === null;
    const status = ticket === null ? 'not_found' : fresh ? 'valid' : 'already_used';
    return {
      outcome: status,
      reason: null,
      move: fresh ? { to: 'inside', from: 'unused', at: checkInAt } : null,
      answer: { http_status: ticket === null ? 404 : 200, body: { status } },
    };
  };
}

function attemptOn(eid: string, tid: string, idempotencyKey = randomUUID()): CheckInAttempt {
  return {
    eid,
    tid,
    idempotency_key: idempotencyKey,
    fingerprint: `fp:${tid}`,
    api_key_id: 'sck_cross',
    scanner_id: 'scanner-1',
    gate_id: null,
    scanned_at: '2026-06-01T12:05:00.000Z',
    received_at: '2026-06-01T12:06:00.000Z',
    admitted_offline: false,
  };
}

function signingKey(): SigningKeyRecord {
  const kid = `kid-${randomUUID()}`;
  return {
    kid,
    public_jwk: { kty: 'OKP', crv: 'Ed25519', x: kid, kid },
    private_key_enc: `enc-${kid}`,
    created_at: '2026-06-01T12:00:00.000Z',
    retired_at: null,
    removed_at: null,
  };
}

/** The API key `attemptOn` names, in good standing: check-in judges the key inside its transaction. */
async function enrolCrossKey(store: PostgresStore): Promise<void> {
  const at = '2026-06-01T12:00:00.000Z';
  const eid = newEventId();
  await store.events.createEvent({
    eid,
    name: 'Keys',
    event_date: at,
    ends_at: null,
    created_at: at,
    reentry: false,
    capacity: null,
    timezone: 'UTC',
    day_starts_at: '00:00',
    auto_exit: false,
  });
  const token = {
    token_id: 'set_cross',
    token_hash: 'cross-token-hash',
    eid,
    gate_id: null,
    expires_at: '2026-06-02T12:00:00.000Z',
    key_expires_at: '2026-06-09T12:00:00.000Z',
    created_at: at,
    used_at: null,
    revoked_at: null,
  };
  await store.scanners.createEnrollmentToken(token);
  const key = {
    api_key_id: 'sck_cross',
    key_hash: 'cross-key-hash',
    scanner_id: 'scanner-1',
    scanner_name: null,
    scanner_platform: null,
  };
  assert.equal((await store.scanners.redeemEnrollmentToken(token.token_hash, at, key)).kind, 'enrolled');
}

describe('PostgresStore: several instances on one database', () => {
  const stores: PostgresStore[] = [];
  let database: { url: string; drop: () => Promise<void> } | null = null;
  const test = (title: string, fn: () => Promise<void>): void => {
    it(title, { skip: skip ?? false }, fn);
  };
  const [a, b] = [(): PostgresStore => stores[0]!, (): PostgresStore => stores[1]!];

  before(async () => {
    if (skip !== undefined) return;
    database = await freshDatabase();
    // Three instances starting at once against an empty database: they must migrate it once.
    stores.push(...(await Promise.all([0, 1, 2].map(() => PostgresStore.open(database!.url)))));
    await enrolCrossKey(a());
  });
  after(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await database?.drop();
  });

  async function oneTicket(): Promise<{ eid: string; tid: string }> {
    const eid = newEventId();
    const tid = newTicketId();
    const at = '2026-06-01T12:00:00.000Z';
    await a().events.createEvent({
      eid,
      name: 'Cross',
      event_date: at,
      ends_at: null,
      created_at: at,
      reentry: false,
      capacity: null,
      timezone: 'UTC',
      day_starts_at: '00:00',
      auto_exit: false,
    });
    await a().tickets.createTickets([
      {
        tid,
        eid,
        holder_name: 'Cross Holder',
        ticket_type: 'general',
        issued_at: at,
        expires_at: null,
        checked_in_at: null,
        revoked_at: null,
        revoke_reason: null,
        ticket_token: `token.${tid}`,
        external_id: null,
        valid_from: null,
        attention: false,
        checkin_text: null,
        email: null,
        order_ref: null,
        short_code: newShortCodes(1)[0]!,
      },
    ]);
    return { eid, tid };
  }

  test('instances starting together apply each migration once', async () => {
    const client = new pg.Client({ connectionString: database!.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: number }>(
        'SELECT version FROM schema_migrations ORDER BY version',
      );
      assert.deepEqual(
        rows.map((r) => r.version),
        POSTGRES_MIGRATIONS.map((m) => m.version),
      );
    } finally {
      await client.end();
    }
  });

  test('first starts racing ensureSigningKey agree on one active key', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => stores[i % stores.length]!.signingKeys.ensureSigningKey(signingKey())),
    );
    assert.equal(new Set(results.map((k) => k.kid)).size, 1);
    assert.equal((await b().signingKeys.listSigningKeys()).length, 1);
  });

  test('30 check-ins of one ticket with different keys across two instances: exactly one valid', async () => {
    const { eid, tid } = await oneTicket();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 === 0 ? a() : b()).checkIns.checkIn(attemptOn(eid, tid), gateDecider('2026-06-01T12:05:00.000Z')),
      ),
    );
    const statuses = results.map((r) =>
      r.kind === 'answered' ? (r.answer.body as { status: string }).status : r.kind,
    );
    assert.equal(statuses.filter((s) => s === 'valid').length, 1);
    assert.equal(statuses.filter((s) => s === 'already_used').length, 29);
    assert.equal((await b().events.countTickets(eid)).checked_in, 1);
  });

  test('20 same-key requests split across two instances: identical answers, one state change', async () => {
    const { eid, tid } = await oneTicket();
    const attempt = attemptOn(eid, tid);
    let decisions = 0;
    const decide = (ticket: TicketRecord | null): CheckInVerdict => {
      decisions += 1;
      return gateDecider('2026-06-01T12:05:00.000Z')(ticket);
    };
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a() : b()).checkIns.checkIn(attempt, decide)),
    );
    assert.equal(decisions, 1);
    const answers = results.map((r) => (r.kind === 'answered' ? r.answer : assert.fail('unexpected conflict')));
    for (const answer of answers) assert.deepEqual(answer, { http_status: 200, body: { status: 'valid' } });
    assert.equal(results.filter((r) => r.kind === 'answered' && !r.replay).length, 1);
    const scans = (await a().checkIns.listScans(eid, 100, null)).items;
    assert.equal(scans.length, 1, 'one line per scan: the replays write none');
    assert.equal(scans[0]!.replay, false);
  });
});
