import { newShortCodes } from '../../src/domain/short-codes.ts';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  hashSecret,
  newApiKeyId,
  newEnrollmentTokenId,
  newEventId,
  newSecret,
  newTicketId,
} from '../../src/domain/ids.ts';
import type {
  CheckInAttempt,
  CheckInVerdict,
  EnrollmentTokenRecord,
  EventRecord,
  NewApiKey,
  SigningKeyRecord,
  Store,
  TicketRecord,
} from '../../src/store/store.ts';
import { bulkTicketsConformance } from './bulk-tickets-conformance.ts';
import { consoleConformance } from './console-conformance.ts';
import { countersConformance } from './counters-conformance.ts';
import { reportCountsConformance } from './report-counts-conformance.ts';
import { feedConformance } from './feed-conformance.ts';
import { outboxConformance } from './outbox-conformance.ts';
import { walletPushConformance } from './wallet-push-conformance.ts';
import { deliveryConformance } from './delivery-conformance.ts';
import { peopleConformance } from './people-conformance.ts';
import { ticketTypesConformance } from './ticket-types-conformance.ts';
import { ticketNotesConformance } from './ticket-notes-conformance.ts';
import { ssoConformance } from './sso-conformance.ts';
import { applePassConformance } from './apple-pass-conformance.ts';

/** Options of one run of the suite. */
export interface ConformanceOptions {
  /** When set, every test is reported as skipped with this reason and no store is opened. */
  skip?: string;
}

const T0 = '2026-06-01T12:00:00.000Z';
const at = (minutes: number): string => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

/** Signing keys are global to a store, so their instants keep increasing across tests. */
let signingClock = Date.parse('2030-01-01T00:00:00.000Z');
const nextSigningInstant = (): string => new Date((signingClock += 1000)).toISOString();

export function newEvent(overrides: Partial<EventRecord> = {}): EventRecord {
  return {
    eid: newEventId(),
    name: 'Conformance Fest',
    event_date: at(600),
    ends_at: null,
    created_at: T0,
    reentry: false,
    capacity: null,
    timezone: 'UTC',
    day_starts_at: '00:00',
    auto_exit: false,
    ...overrides,
  };
}

export function newTicket(eid: string, overrides: Partial<TicketRecord> = {}): TicketRecord {
  const tid = newTicketId();
  return {
    tid,
    eid,
    holder_name: 'Ada Lovelace',
    ticket_type: 'general',
    issued_at: T0,
    expires_at: null,
    checked_in_at: null,
    revoked_at: null,
    revoke_reason: null,
    ticket_token: `token.for.${tid}`,
    external_id: null,
    valid_from: null,
    attention: false,
    checkin_text: null,
    email: null,
    order_ref: null,
    short_code: newShortCodes(1)[0]!,
    ...overrides,
  };
}

export function newToken(eid: string, overrides: Partial<EnrollmentTokenRecord> = {}): EnrollmentTokenRecord {
  return {
    token_id: newEnrollmentTokenId(),
    token_hash: hashSecret(newSecret('st_')),
    eid,
    gate_id: 'gate-a',
    expires_at: at(60),
    key_expires_at: at(60 * 48),
    created_at: T0,
    used_at: null,
    revoked_at: null,
    allow_search: false,
    ...overrides,
  };
}

export function newApiKey(): NewApiKey {
  return {
    api_key_id: newApiKeyId(),
    key_hash: hashSecret(newSecret('sk_live_')),
    scanner_id: `scanner-${randomUUID()}`,
    scanner_name: 'Gate A phone',
    scanner_platform: 'android',
  };
}

function newSigningKey(): SigningKeyRecord {
  const kid = `kid-${randomUUID()}`;
  return {
    kid,
    public_jwk: { kty: 'OKP', crv: 'Ed25519', x: `x-of-${kid}`, kid, alg: 'EdDSA', use: 'sig' },
    private_key_enc: `enc-of-${kid}`,
    created_at: nextSigningInstant(),
    retired_at: null,
    removed_at: null,
  };
}

/** An API key in good standing in the open store: check-in judges the attempt's key in its transaction. */
let liveKeyId = 'sck_none';

function newAttempt(eid: string, tid: string, overrides: Partial<CheckInAttempt> = {}): CheckInAttempt {
  return {
    eid,
    tid,
    idempotency_key: randomUUID(),
    fingerprint: `fp:${tid}`,
    api_key_id: liveKeyId,
    scanner_id: 'scanner-1',
    gate_id: 'gate-a',
    scanned_at: at(5),
    received_at: at(6),
    admitted_offline: null,
    ...overrides,
  };
}

/** A decider like the domain's: the first scan of an unused ticket checks it in. */
function gateDecider(checkInAt: string, calls: (TicketRecord | null)[] = []) {
  return (ticket: TicketRecord | null): CheckInVerdict => {
    calls.push(ticket);
    if (ticket === null) {
      return {
        outcome: 'not_found',
        reason: 'unknown tid',
        move: null,
        answer: { http_status: 404, body: { error: { code: 'NOT_FOUND', message: 'no such ticket', details: {} } } },
      };
    }
    const fresh = ticket.checked_in_at === null;
    const status = fresh ? 'valid' : 'already_used';
    return {
      outcome: status,
      reason: fresh ? null : 'checked in before',
      move: fresh ? { to: 'inside', from: 'unused', at: checkInAt } : null,
      answer: { http_status: 200, body: { status, ticket: { tid: ticket.tid, checked_in_at: ticket.checked_in_at } } },
    };
  };
}

const mustNotDecide = (): CheckInVerdict => assert.fail('decide must not be called for a known idempotency key');

/** One run of the storage conformance suite: every backend must pass it unchanged. */
export function storeConformance(
  name: string,
  open: () => Promise<Store>,
  cleanup?: () => Promise<void>,
  options: ConformanceOptions = {},
): void {
  const test = (title: string, fn: () => Promise<void>): void => {
    it(title, { skip: options.skip ?? false }, fn);
  };
  let opened: Store | null = null;
  const store = (): Store => opened ?? assert.fail('the store is not open');

  /** An event and its tickets, inserted fresh for one test. */
  async function seed(ticketCount = 1): Promise<{ event: EventRecord; tickets: TicketRecord[] }> {
    const event = newEvent();
    await store().events.createEvent(event);
    const tickets = Array.from({ length: ticketCount }, () => newTicket(event.eid));
    await store().tickets.createTickets(tickets);
    return { event, tickets };
  }

  async function enrol(eid: string): Promise<{ token: EnrollmentTokenRecord; key: NewApiKey }> {
    const token = newToken(eid);
    await store().scanners.createEnrollmentToken(token);
    const key = newApiKey();
    const result = await store().scanners.redeemEnrollmentToken(token.token_hash, T0, key);
    assert.equal(result.kind, 'enrolled');
    return { token, key };
  }

  describe(name, () => {
    before(async () => {
      if (options.skip) return;
      opened = await open();
      const { event } = await seed(0);
      liveKeyId = (await enrol(event.eid)).key.api_key_id;
    });
    after(async () => {
      await opened?.close();
      if (!options.skip) await cleanup?.();
    });

    describe('event settings and gates', () => {
      test('an event starts without re-entry or capacity, and its settings change one by one', async () => {
        const { event } = await seed(0);
        assert.deepEqual({ reentry: event.reentry, capacity: event.capacity }, { reentry: false, capacity: null });
        const read = await store().events.getEvent(event.eid);
        assert.deepEqual({ reentry: read!.reentry, capacity: read!.capacity }, { reentry: false, capacity: null });
        const reentry = await store().events.updateEventSettings(event.eid, { reentry: true });
        assert.deepEqual({ reentry: reentry!.reentry, capacity: reentry!.capacity }, { reentry: true, capacity: null });
        const capacity = await store().events.updateEventSettings(event.eid, { capacity: 1500 });
        assert.deepEqual(
          { reentry: capacity!.reentry, capacity: capacity!.capacity },
          { reentry: true, capacity: 1500 },
        );
        const cleared = await store().events.updateEventSettings(event.eid, { capacity: null, reentry: false });
        assert.deepEqual(
          { reentry: cleared!.reentry, capacity: cleared!.capacity },
          { reentry: false, capacity: null },
        );
        const listed = (await store().events.listEvents(1000, null)).items.find((e) => e.eid === event.eid);
        assert.deepEqual({ reentry: listed!.reentry, capacity: listed!.capacity }, { reentry: false, capacity: null });
        assert.equal(await store().events.updateEventSettings('evt_none', { reentry: true }), null);
      });

      test('gates are declared, replaced, listed in gate_id order and removed', async () => {
        const { event } = await seed(0);
        assert.deepEqual(await store().events.listGates(event.eid), []);
        const vip = { eid: event.eid, gate_id: 'vip', name: 'VIP entrance', admits: ['VIP'], updated_at: at(1) };
        const main = { eid: event.eid, gate_id: 'main', name: 'Main', admits: null, updated_at: at(2) };
        await store().events.putGate(vip);
        await store().events.putGate(main);
        assert.deepEqual(await store().events.getGate(event.eid, 'vip'), vip);
        assert.deepEqual(await store().events.listGates(event.eid), [main, vip]);
        const widened = { ...vip, name: 'VIP and crew', admits: ['VIP', 'Crew'], updated_at: at(3) };
        await store().events.putGate(widened);
        assert.deepEqual(await store().events.getGate(event.eid, 'vip'), widened);
        assert.equal(await store().events.deleteGate(event.eid, 'vip'), true);
        assert.equal(await store().events.deleteGate(event.eid, 'vip'), false);
        assert.equal(await store().events.getGate(event.eid, 'vip'), null);
        const other = await seed(0);
        assert.deepEqual(await store().events.listGates(other.event.eid), [], 'gates belong to their event');
      });
    });

    // First, so that on a fresh store ensureSigningKey meets an empty table.
    describe('signing keys', () => {
      test('ensureSigningKey inserts the first key and keeps it afterwards', async () => {
        const existing = await store().signingKeys.getActiveSigningKey();
        const first = newSigningKey();
        const kept = await store().signingKeys.ensureSigningKey(first);
        assert.deepEqual(kept, existing ?? first);
        const second = newSigningKey();
        assert.deepEqual(await store().signingKeys.ensureSigningKey(second), kept);
        assert.equal(await store().signingKeys.getSigningKey(second.kid), null);
        assert.deepEqual(await store().signingKeys.getActiveSigningKey(), kept);
      });

      test('concurrent ensureSigningKey calls agree on one active key', async () => {
        const results = await Promise.all(
          Array.from({ length: 10 }, () => store().signingKeys.ensureSigningKey(newSigningKey())),
        );
        assert.equal(new Set(results.map((k) => k.kid)).size, 1);
        const active = (await store().signingKeys.listSigningKeys()).filter((k) => k.retired_at === null);
        assert.deepEqual(
          active.map((k) => k.kid),
          [results[0]!.kid],
        );
      });

      test('addSigningKey retires the previous key at the new key’s creation time', async () => {
        const previous = newSigningKey();
        await store().signingKeys.addSigningKey(previous);
        const next = newSigningKey();
        await store().signingKeys.addSigningKey(next);
        assert.deepEqual(await store().signingKeys.getActiveSigningKey(), next);
        assert.deepEqual(await store().signingKeys.getSigningKey(previous.kid), {
          ...previous,
          retired_at: next.created_at,
        });
        const active = (await store().signingKeys.listSigningKeys()).filter((k) => k.retired_at === null);
        assert.deepEqual(
          active.map((k) => k.kid),
          [next.kid],
        );
      });

      test('concurrent addSigningKey calls leave exactly one active key', async () => {
        const keys = Array.from({ length: 10 }, () => newSigningKey());
        await Promise.all(keys.map((k) => store().signingKeys.addSigningKey(k)));
        const active = (await store().signingKeys.listSigningKeys()).filter((k) => k.retired_at === null);
        assert.equal(active.length, 1);
        assert.ok(keys.some((k) => k.kid === active[0]!.kid));
        assert.deepEqual(await store().signingKeys.getActiveSigningKey(), active[0]);
      });

      test('listSigningKeys lists every key newest first, public JWK as an object', async () => {
        const keys = [newSigningKey(), newSigningKey(), newSigningKey()];
        for (const key of keys) await store().signingKeys.addSigningKey(key);
        const listed = await store().signingKeys.listSigningKeys();
        assert.deepEqual(
          listed.slice(0, 3).map((k) => k.kid),
          keys.map((k) => k.kid).reverse(),
        );
        assert.deepEqual(listed[0]!.public_jwk, keys[2]!.public_jwk);
        const created = listed.map((k) => k.created_at);
        assert.deepEqual(created, [...created].sort().reverse());
      });

      test('removeSigningKey refuses the active key, removes a retired one once, ignores unknown kids', async () => {
        const old = newSigningKey();
        await store().signingKeys.addSigningKey(old);
        const current = newSigningKey();
        await store().signingKeys.addSigningKey(current);
        assert.equal(await store().signingKeys.removeSigningKey(current.kid, at(1)), 'active');
        assert.equal((await store().signingKeys.getSigningKey(current.kid))!.removed_at, null);
        assert.equal(await store().signingKeys.removeSigningKey(old.kid, at(2)), 'removed');
        assert.equal(await store().signingKeys.removeSigningKey(old.kid, at(3)), 'removed');
        const removed = await store().signingKeys.getSigningKey(old.kid);
        assert.deepEqual(removed, { ...old, retired_at: current.created_at, removed_at: at(2) });
        assert.equal(await store().signingKeys.removeSigningKey(`kid-${randomUUID()}`, at(4)), 'unknown');
        assert.equal(await store().signingKeys.getSigningKey(`kid-${randomUUID()}`), null);
      });
    });

    describe('settings', () => {
      test('getSetting is null for an absent setting', async () => {
        assert.equal(await store().settings.getSetting(`absent-${randomUUID()}`), null);
      });

      test('putSettingIfAbsent: the first writer wins', async () => {
        const name = `setting-${randomUUID()}`;
        assert.equal(await store().settings.putSettingIfAbsent(name, 'first'), 'first');
        assert.equal(await store().settings.putSettingIfAbsent(name, 'second'), 'first');
        assert.equal(await store().settings.getSetting(name), 'first');
      });

      test('putSetting replaces the value; ping answers', async () => {
        const name = `setting-${randomUUID()}`;
        await store().settings.putSetting(name, 'first');
        await store().settings.putSetting(name, 'second');
        assert.equal(await store().settings.getSetting(name), 'second');
        await store().ping();
      });

      test('concurrent putSettingIfAbsent calls all return the one value that holds', async () => {
        const name = `setting-${randomUUID()}`;
        const values = Array.from({ length: 10 }, (_, i) => `value-${i}`);
        const results = await Promise.all(values.map((v) => store().settings.putSettingIfAbsent(name, v)));
        const held = await store().settings.getSetting(name);
        assert.ok(held !== null && values.includes(held));
        assert.deepEqual(
          results,
          values.map(() => held),
        );
      });
    });

    describe('events', () => {
      test('createEvent and getEvent round-trip; unknown eid is null', async () => {
        const event = newEvent({ ends_at: at(900) });
        await store().events.createEvent(event);
        assert.deepEqual(await store().events.getEvent(event.eid), event);
        assert.equal(await store().events.getEvent(newEventId()), null);
      });

      test('createEvent refuses a duplicate eid', async () => {
        const event = newEvent();
        await store().events.createEvent(event);
        await assert.rejects(store().events.createEvent({ ...event, name: 'Impostor' }));
        assert.equal((await store().events.getEvent(event.eid))!.name, event.name);
      });

      test('listEvents pages in id order (time-ordered to the millisecond) with cursors', async () => {
        const ours = [newEvent(), newEvent(), newEvent()].sort((a, b) => (a.eid < b.eid ? -1 : 1));
        for (const event of ours) await store().events.createEvent(event);
        const seen: EventRecord[] = [];
        let cursor: string | null = null;
        do {
          const pageOf: Awaited<ReturnType<Store['events']['listEvents']>> = await store().events.listEvents(2, cursor);
          assert.ok(pageOf.items.length <= 2);
          if (pageOf.next_cursor !== null) assert.equal(pageOf.next_cursor, pageOf.items.at(-1)!.eid);
          seen.push(...pageOf.items);
          cursor = pageOf.next_cursor;
        } while (cursor !== null);
        const eids = seen.map((e) => e.eid);
        assert.deepEqual(eids, [...new Set(eids)].sort());
        assert.deepEqual(
          eids.filter((eid) => ours.some((e) => e.eid === eid)),
          ours.map((e) => e.eid),
        );
        // Other tests' events share the store (and may share a millisecond): compare with the whole list.
        const after = seen[eids.indexOf(ours[0]!.eid) + 1]!;
        assert.deepEqual(await store().events.listEvents(1, ours[0]!.eid), { items: [after], next_cursor: after.eid });
        assert.deepEqual(await store().events.listEvents(5, eids.at(-1)!), { items: [], next_cursor: null });
      });

      test('countTickets counts issued, checked-in, revoked and conflicting tickets as numbers', async () => {
        const { event, tickets } = await seed(4);
        await store().checkIns.checkIn(newAttempt(event.eid, tickets[0]!.tid), gateDecider(at(5)));
        await store().tickets.revokeTicket(tickets[1]!.tid, at(7), 'refund');
        await store().tickets.revokeTicket(tickets[0]!.tid, at(8), null);
        assert.deepEqual(await store().events.countTickets(event.eid), {
          issued: 4,
          checked_in: 1,
          revoked: 2,
          conflicts: 0,
        });
        assert.deepEqual(await store().events.countTickets(newEventId()), {
          issued: 0,
          checked_in: 0,
          revoked: 0,
          conflicts: 0,
        });
      });
    });

    feedConformance({ test, store, seed, newAttempt, gateDecider, at });
    outboxConformance({ test, store, seed, newAttempt, gateDecider, at });
    walletPushConformance({ test, store, seed, at });
    deliveryConformance({ test, store, seed, newTicket });
    consoleConformance({ test, store, seed, at });
    peopleConformance({ test, store, at });
    countersConformance({ test, store, newAttempt });
    reportCountsConformance({ test, store, newAttempt });
    ticketTypesConformance({ test, store, seed, newTicket, at });
    ticketNotesConformance({ test, store, seed, newTicket, at });
    bulkTicketsConformance({ test, store, seed, newTicket });
    ssoConformance({ test, store, at });
    applePassConformance({ test, store, seed, at });

    describe('tickets', () => {
      test('createTickets and getTicket round-trip every field; unknown tid is null', async () => {
        const event = newEvent();
        await store().events.createEvent(event);
        const plain = newTicket(event.eid);
        const full = newTicket(event.eid, { expires_at: at(700), holder_name: 'Grace Hopper', ticket_type: 'vip' });
        await store().tickets.createTickets([plain, full]);
        assert.deepEqual(await store().tickets.getTicket(plain.tid), plain);
        assert.deepEqual(await store().tickets.getTicket(full.tid), full);
        assert.equal(await store().tickets.getTicket(newTicketId()), null);
      });

      test('createTickets inserts nothing when one ticket of the batch is a duplicate', async () => {
        const event = newEvent();
        await store().events.createEvent(event);
        const a = newTicket(event.eid);
        const b = newTicket(event.eid);
        await assert.rejects(store().tickets.createTickets([a, b, { ...a, holder_name: 'Twin' }]));
        assert.equal(await store().tickets.getTicket(a.tid), null);
        assert.equal(await store().tickets.getTicket(b.tid), null);
        assert.equal((await store().events.countTickets(event.eid)).issued, 0);
      });

      test('createTickets inserts nothing when one ticket collides with an existing one', async () => {
        const { event, tickets } = await seed(1);
        const fresh = newTicket(event.eid);
        await assert.rejects(store().tickets.createTickets([fresh, { ...tickets[0]!, holder_name: 'Twin' }]));
        assert.equal(await store().tickets.getTicket(fresh.tid), null);
        assert.deepEqual(await store().tickets.getTicket(tickets[0]!.tid), tickets[0]);
      });

      test('createTickets takes a large batch and an empty one', async () => {
        const event = newEvent();
        await store().events.createEvent(event);
        await store().tickets.createTickets([]);
        const batch = Array.from({ length: 10_000 }, () => newTicket(event.eid));
        await store().tickets.createTickets(batch);
        assert.equal((await store().events.countTickets(event.eid)).issued, 10_000);
        assert.deepEqual(await store().tickets.getTicket(batch[9_999]!.tid), batch[9_999]);
      });

      test('listTickets pages one event’s tickets in tid order (time-ordered to the millisecond)', async () => {
        const { event, tickets: issued } = await seed(4);
        const tickets = [...issued].sort((a, b) => (a.tid < b.tid ? -1 : 1));
        await seed(2);
        const first = await store().tickets.listTickets(event.eid, 2, null);
        assert.deepEqual(first, { items: tickets.slice(0, 2), next_cursor: tickets[1]!.tid });
        const second = await store().tickets.listTickets(event.eid, 2, first.next_cursor);
        assert.deepEqual(second, { items: tickets.slice(2), next_cursor: null });
        assert.deepEqual(await store().tickets.listTickets(event.eid, 10, null), { items: tickets, next_cursor: null });
        assert.deepEqual(await store().tickets.listTickets(newEventId(), 10, null), { items: [], next_cursor: null });
      });

      test('revokeTicket keeps the first time and reason; unknown tid is null', async () => {
        const { tickets } = await seed(1);
        const ticket = tickets[0]!;
        const revoked = { ...ticket, revoked_at: at(10), revoke_reason: 'chargeback' };
        assert.deepEqual(await store().tickets.revokeTicket(ticket.tid, at(10), 'chargeback'), revoked);
        assert.deepEqual(await store().tickets.revokeTicket(ticket.tid, at(20), 'again'), revoked);
        assert.deepEqual(await store().tickets.getTicket(ticket.tid), revoked);
        assert.equal(await store().tickets.revokeTicket(newTicketId(), at(10), null), null);
      });
    });

    describe('enrolment tokens', () => {
      test('redeemEnrollmentToken exchanges a token for an API key once', async () => {
        const { event } = await seed(0);
        const token = newToken(event.eid);
        await store().scanners.createEnrollmentToken(token);
        const key = newApiKey();
        const result = await store().scanners.redeemEnrollmentToken(token.token_hash, at(1), key);
        const expectedKey = {
          ...key,
          eid: event.eid,
          gate_id: token.gate_id,
          token_id: token.token_id,
          enrolled_at: at(1),
          expires_at: token.key_expires_at,
          last_seen_at: at(1),
          revoked_at: null,
          allow_search: false,
          clock_offset_s: null,
        };
        assert.deepEqual(result, { kind: 'enrolled', key: expectedKey, token: { ...token, used_at: at(1) } });
        assert.deepEqual(await store().scanners.findApiKey(key.key_hash), expectedKey);
        const again = await store().scanners.redeemEnrollmentToken(token.token_hash, at(2), newApiKey());
        assert.deepEqual(again, { kind: 'refused', why: 'used' });
      });

      test('a token that allows finding holders gives its key allow_search, kept as stored', async () => {
        const { event } = await seed(0);
        const token = newToken(event.eid, { allow_search: true });
        await store().scanners.createEnrollmentToken(token);
        const key = newApiKey();
        const result = await store().scanners.redeemEnrollmentToken(token.token_hash, at(1), key);
        assert.equal(result.kind === 'enrolled' && result.key.allow_search, true);
        assert.equal((await store().scanners.findApiKey(key.key_hash))?.allow_search, true);
        assert.equal((await store().scanners.findApiKeyByToken(token.token_id))?.allow_search, true);
        const listed = await store().scanners.listEnrollmentTokens(event.eid);
        assert.deepEqual(
          listed.map((t) => t.allow_search),
          [true],
        );
      });

      test('redeemEnrollmentToken refuses unknown, expired and revoked tokens', async () => {
        const { event } = await seed(0);
        const unknown = await store().scanners.redeemEnrollmentToken(hashSecret(newSecret('st_')), at(1), newApiKey());
        assert.deepEqual(unknown, { kind: 'refused', why: 'unknown' });
        const expiring = newToken(event.eid, { expires_at: at(30) });
        await store().scanners.createEnrollmentToken(expiring);
        const expired = await store().scanners.redeemEnrollmentToken(expiring.token_hash, at(30), newApiKey());
        assert.deepEqual(expired, { kind: 'refused', why: 'expired' });
        const revokedToken = newToken(event.eid);
        await store().scanners.createEnrollmentToken(revokedToken);
        await store().scanners.revokeEnrollmentToken(revokedToken.token_id, at(1));
        const revoked = await store().scanners.redeemEnrollmentToken(revokedToken.token_hash, at(2), newApiKey());
        assert.deepEqual(revoked, { kind: 'refused', why: 'revoked' });
        assert.deepEqual(await store().scanners.listApiKeys(event.eid, 100, null), { items: [], next_cursor: null });
      });

      test('20 concurrent redeems of one token: exactly one enrolled', async () => {
        const { event } = await seed(0);
        const token = newToken(event.eid);
        await store().scanners.createEnrollmentToken(token);
        const results = await Promise.all(
          Array.from({ length: 20 }, () =>
            store().scanners.redeemEnrollmentToken(token.token_hash, at(1), newApiKey()),
          ),
        );
        assert.equal(results.filter((r) => r.kind === 'enrolled').length, 1);
        assert.deepEqual(
          results.filter((r) => r.kind === 'refused'),
          Array.from({ length: 19 }, () => ({ kind: 'refused', why: 'used' })),
        );
        assert.equal((await store().scanners.listApiKeys(event.eid, 100, null)).items.length, 1);
      });

      test('revokeEnrollmentToken revokes an unused token once and leaves used tokens alone', async () => {
        const { event } = await seed(0);
        const unused = newToken(event.eid);
        await store().scanners.createEnrollmentToken(unused);
        const revoked = { ...unused, revoked_at: at(3) };
        assert.deepEqual(await store().scanners.revokeEnrollmentToken(unused.token_id, at(3)), revoked);
        assert.deepEqual(await store().scanners.revokeEnrollmentToken(unused.token_id, at(4)), revoked);
        const { token: used } = await enrol(event.eid);
        assert.deepEqual(await store().scanners.revokeEnrollmentToken(used.token_id, at(5)), { ...used, used_at: T0 });
        assert.equal(await store().scanners.revokeEnrollmentToken(newEnrollmentTokenId(), at(5)), null);
      });

      test('createEnrollmentToken refuses a duplicate token hash', async () => {
        const { event } = await seed(0);
        const token = newToken(event.eid);
        await store().scanners.createEnrollmentToken(token);
        await assert.rejects(store().scanners.createEnrollmentToken({ ...token, token_id: newEnrollmentTokenId() }));
      });
    });

    describe('API keys', () => {
      test('findApiKey returns the key whatever its state; unknown hash is null', async () => {
        const { event } = await seed(0);
        const { key } = await enrol(event.eid);
        await store().scanners.revokeApiKey(key.api_key_id, at(9));
        assert.equal((await store().scanners.findApiKey(key.key_hash))!.revoked_at, at(9));
        assert.equal(await store().scanners.findApiKey(hashSecret(newSecret('sk_live_'))), null);
      });

      test('touchApiKey only moves last_seen_at forward', async () => {
        const { event } = await seed(0);
        const { key } = await enrol(event.eid);
        const lastSeen = async (): Promise<string | null> =>
          (await store().scanners.findApiKey(key.key_hash))!.last_seen_at;
        assert.equal(await lastSeen(), T0);
        await store().scanners.touchApiKey(key.api_key_id, at(60));
        assert.equal(await lastSeen(), at(60));
        await store().scanners.touchApiKey(key.api_key_id, at(30));
        assert.equal(await lastSeen(), at(60));
        await store().scanners.touchApiKey(newApiKeyId(), at(90));
      });

      test('revokeApiKey revokes once and keeps the first time; unknown id is null', async () => {
        const { event } = await seed(0);
        const { key } = await enrol(event.eid);
        const first = await store().scanners.revokeApiKey(key.api_key_id, at(10));
        assert.equal(first!.revoked_at, at(10));
        assert.deepEqual(await store().scanners.revokeApiKey(key.api_key_id, at(20)), first);
        assert.equal(await store().scanners.revokeApiKey(newApiKeyId(), at(10)), null);
      });

      test('listApiKeys pages one event’s keys in api_key_id order; findApiKeyByToken finds the key a token gave', async () => {
        const { event } = await seed(0);
        const enrolled = [await enrol(event.eid), await enrol(event.eid), await enrol(event.eid)];
        const { event: other } = await seed(0);
        await enrol(other.eid);
        const ids = enrolled.map((e) => e.key.api_key_id).sort();
        const first = await store().scanners.listApiKeys(event.eid, 2, null);
        assert.deepEqual(
          first.items.map((k) => k.api_key_id),
          ids.slice(0, 2),
        );
        assert.equal(first.next_cursor, ids[1]);
        const rest = await store().scanners.listApiKeys(event.eid, 2, first.next_cursor);
        assert.deepEqual(
          rest.items.map((k) => k.api_key_id),
          ids.slice(2),
        );
        assert.equal(rest.next_cursor, null);
        assert.ok([...first.items, ...rest.items].every((k) => k.eid === event.eid));
        assert.deepEqual(await store().scanners.listApiKeys(newEventId(), 10, null), { items: [], next_cursor: null });
        const { token } = enrolled[0]!;
        assert.equal(
          (await store().scanners.findApiKeyByToken(token.token_id))!.api_key_id,
          enrolled[0]!.key.api_key_id,
        );
        assert.equal(await store().scanners.findApiKeyByToken('set_unknown'), null);
      });
    });

    describe('check-in', () => {
      test('decide sees the ticket as stored; a verdict moving it inside checks it in', async () => {
        const { event, tickets } = await seed(1);
        const calls: (TicketRecord | null)[] = [];
        const result = await store().checkIns.checkIn(
          newAttempt(event.eid, tickets[0]!.tid),
          gateDecider(at(5), calls),
        );
        assert.deepEqual(calls, [tickets[0]]);
        assert.equal(result.kind, 'answered');
        assert.equal(result.kind === 'answered' && result.replay, false);
        assert.deepEqual(await store().tickets.getTicket(tickets[0]!.tid), { ...tickets[0], checked_in_at: at(5) });
      });

      test('decide sees the declared gate the attempt names, read in its transaction', async () => {
        const { event, tickets } = await seed(3);
        await store().events.putGate({
          eid: event.eid,
          gate_id: 'vip',
          name: 'VIP',
          admits: ['VIP'],
          updated_at: at(1),
        });
        const seen: unknown[] = [];
        const decider = gateDecider(at(5));
        const watch = (ticket: TicketRecord | null, gate: unknown) => {
          seen.push(gate);
          return decider(ticket);
        };
        await store().checkIns.checkIn(newAttempt(event.eid, tickets[0]!.tid, { gate_id: 'vip' }), watch);
        await store().checkIns.checkIn(newAttempt(event.eid, tickets[1]!.tid, { gate_id: 'side-door' }), watch);
        await store().checkIns.checkIn(newAttempt(event.eid, tickets[2]!.tid), watch);
        await store().checkIns.checkInWithPresence(
          newAttempt(event.eid, tickets[0]!.tid, { gate_id: 'vip' }),
          (t, _p, gate) => watch(t, gate),
        );
        const vip = { eid: event.eid, gate_id: 'vip', name: 'VIP', admits: ['VIP'], updated_at: at(1) };
        assert.deepEqual(seen, [vip, null, null, vip], 'declared, undeclared, none named, and with presence');
      });

      test('a key revoked or expired by the time the transaction runs is refused; nothing is stored', async () => {
        const { event, tickets } = await seed(1);
        const revoked = (await enrol(event.eid)).key.api_key_id;
        await store().scanners.revokeApiKey(revoked, at(4));
        const attempt = newAttempt(event.eid, tickets[0]!.tid, { api_key_id: revoked });
        assert.deepEqual(await store().checkIns.checkIn(attempt, mustNotDecide), {
          kind: 'key_refused',
          why: 'revoked',
        });
        // The conformance key expires 48 hours after T0: an attempt received then is refused.
        const late = newAttempt(event.eid, tickets[0]!.tid, { received_at: at(60 * 48) });
        assert.deepEqual(await store().checkIns.checkIn(late, mustNotDecide), { kind: 'key_refused', why: 'expired' });
        assert.equal((await store().tickets.getTicket(tickets[0]!.tid))!.checked_in_at, null);
        assert.deepEqual((await store().checkIns.listScans(event.eid, 10, null)).items, []);
        // The same idempotency key is still free for a key in good standing.
        const fresh = await store().checkIns.checkIn({ ...attempt, api_key_id: liveKeyId }, gateDecider(at(5)));
        assert.equal(fresh.kind === 'answered' && fresh.replay, false);
      });

      test('decide sees null for an unknown tid, and that answer is remembered too', async () => {
        const { event } = await seed(0);
        const calls: (TicketRecord | null)[] = [];
        const attempt = newAttempt(event.eid, newTicketId());
        const first = await store().checkIns.checkIn(attempt, gateDecider(at(5), calls));
        assert.deepEqual(calls, [null]);
        assert.ok(first.kind === 'answered');
        assert.equal(first.answer.http_status, 404);
        assert.deepEqual(await store().checkIns.checkIn(attempt, mustNotDecide), { ...first, replay: true });
      });

      test('logRefusedAttempt appends a refused line and changes nothing else', async () => {
        const { event, tickets } = await seed(1);
        const attempt = newAttempt(event.eid, tickets[0]!.tid);
        await store().checkIns.logRefusedAttempt(attempt, 'FORBIDDEN: another gate');
        const [line, ...rest] = (await store().checkIns.listScans(event.eid, 10, null)).items;
        assert.equal(rest.length, 0);
        assert.equal(line!.outcome, 'refused');
        assert.equal(line!.reason, 'FORBIDDEN: another gate');
        assert.equal(line!.replay, false);
        assert.equal(line!.idempotency_key, attempt.idempotency_key);
        assert.deepEqual(await store().tickets.getTicket(tickets[0]!.tid), tickets[0]);
        const fresh = await store().checkIns.checkIn(attempt, gateDecider(at(5)));
        assert.equal(fresh.kind === 'answered' && fresh.replay, false, 'the idempotency key was not used up');
      });

      test('a decide that throws stores nothing, and its error reaches the caller', async () => {
        const { event, tickets } = await seed(1);
        const attempt = newAttempt(event.eid, tickets[0]!.tid);
        const refusal = new Error('refused inside the transaction');
        await assert.rejects(
          store().checkIns.checkIn(attempt, () => {
            throw refusal;
          }),
          (error) => error === refusal,
        );
        assert.deepEqual(await store().tickets.getTicket(tickets[0]!.tid), tickets[0]);
        assert.equal((await store().checkIns.listScans(event.eid, 10, null)).items.length, 0);
        const after = await store().checkIns.checkIn(attempt, gateDecider(at(5)));
        assert.equal(after.kind === 'answered' && after.replay, false, 'the key was not used up');
      });

      test('a verdict without a move leaves the ticket as it is', async () => {
        const { event, tickets } = await seed(1);
        await store().checkIns.checkIn(newAttempt(event.eid, tickets[0]!.tid), () => ({
          outcome: 'invalid_signature',
          reason: 'bad signature',
          move: null,
          answer: { http_status: 400, body: { status: 'invalid_signature', ticket: null } },
        }));
        assert.deepEqual(await store().tickets.getTicket(tickets[0]!.tid), tickets[0]);
      });

      test('a second first entry never overwrites the first check-in', async () => {
        const { event, tickets } = await seed(1);
        const force = (when: string) => (): CheckInVerdict => ({
          outcome: 'valid',
          reason: null,
          move: { to: 'inside', from: 'unused', at: when },
          answer: { http_status: 200, body: { status: 'valid' } },
        });
        await store().checkIns.checkIn(newAttempt(event.eid, tickets[0]!.tid), force(at(5)));
        await store().checkIns.checkIn(newAttempt(event.eid, tickets[0]!.tid), force(at(9)));
        assert.equal((await store().tickets.getTicket(tickets[0]!.tid))!.checked_in_at, at(5));
      });

      test('a replay with the same fingerprint returns the stored answer without deciding again', async () => {
        const { event, tickets } = await seed(1);
        const attempt = newAttempt(event.eid, tickets[0]!.tid);
        const first = await store().checkIns.checkIn(attempt, gateDecider(at(5)));
        assert.ok(first.kind === 'answered');
        await store().tickets.revokeTicket(tickets[0]!.tid, at(7), 'changed since');
        const replay = await store().checkIns.checkIn({ ...attempt, received_at: at(8) }, mustNotDecide);
        assert.deepEqual(replay, { kind: 'answered', answer: first.answer, replay: true });
      });

      test('the same key with another fingerprint is a conflict and decides nothing', async () => {
        const { event, tickets } = await seed(2);
        const attempt = newAttempt(event.eid, tickets[0]!.tid);
        await store().checkIns.checkIn(attempt, gateDecider(at(5)));
        const other = { ...attempt, tid: tickets[1]!.tid, fingerprint: `fp:${tickets[1]!.tid}` };
        assert.deepEqual(await store().checkIns.checkIn(other, mustNotDecide), { kind: 'conflict' });
        assert.equal((await store().tickets.getTicket(tickets[1]!.tid))!.checked_in_at, null);
      });

      test('idempotency keys are scoped per event', async () => {
        const a = await seed(1);
        const b = await seed(1);
        const key = randomUUID();
        const calls: (TicketRecord | null)[] = [];
        const decide = gateDecider(at(5), calls);
        const inA = await store().checkIns.checkIn(
          newAttempt(a.event.eid, a.tickets[0]!.tid, { idempotency_key: key }),
          decide,
        );
        const inB = await store().checkIns.checkIn(
          newAttempt(b.event.eid, b.tickets[0]!.tid, { idempotency_key: key }),
          decide,
        );
        assert.deepEqual(calls, [a.tickets[0], b.tickets[0]]);
        for (const result of [inA, inB]) {
          assert.ok(result.kind === 'answered');
          assert.equal(result.replay, false);
          assert.equal((result.answer.body as { status: string }).status, 'valid');
        }
      });

      test('30 concurrent attempts with different keys on one ticket: exactly one check-in', async () => {
        const { event, tickets } = await seed(1);
        const tid = tickets[0]!.tid;
        const results = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            store().checkIns.checkIn(newAttempt(event.eid, tid), gateDecider(at(10 + i / 100))),
          ),
        );
        const statuses = results.map((r) =>
          r.kind === 'answered' ? (r.answer.body as { status: string }).status : r.kind,
        );
        assert.equal(statuses.filter((s) => s === 'valid').length, 1);
        assert.equal(statuses.filter((s) => s === 'already_used').length, 29);
        const winner = results[statuses.indexOf('valid')]!;
        assert.ok(winner.kind === 'answered' && winner.replay === false);
        const checkedIn = (await store().tickets.getTicket(tid))!.checked_in_at;
        assert.equal(checkedIn, at(10 + statuses.indexOf('valid') / 100));
        const scans = (await store().checkIns.listScans(event.eid, 100, null)).items;
        assert.equal(scans.length, 30);
        assert.equal(scans.filter((s) => s.outcome === 'valid').length, 1);
      });

      test('20 concurrent attempts with one key: identical answers, one state change', async () => {
        const { event, tickets } = await seed(1);
        const attempt = newAttempt(event.eid, tickets[0]!.tid);
        const calls: (TicketRecord | null)[] = [];
        const results = await Promise.all(
          Array.from({ length: 20 }, () => store().checkIns.checkIn(attempt, gateDecider(at(5), calls))),
        );
        assert.equal(calls.length, 1);
        const answers = results.map((r) => (r.kind === 'answered' ? r.answer : assert.fail('unexpected conflict')));
        for (const answer of answers) assert.deepEqual(answer, answers[0]);
        assert.equal((answers[0]!.body as { status: string }).status, 'valid');
        assert.equal(results.filter((r) => r.kind === 'answered' && !r.replay).length, 1);
        const scans = (await store().checkIns.listScans(event.eid, 100, null)).items;
        assert.equal(scans.length, 1, 'one line per scan: the replays write none');
        assert.equal(scans[0]!.replay, false);
      });

      test('20 concurrent attempts with one key on an unknown tid: identical answers, one decision', async () => {
        const { event } = await seed(0);
        const attempt = newAttempt(event.eid, newTicketId());
        const calls: (TicketRecord | null)[] = [];
        const results = await Promise.all(
          Array.from({ length: 20 }, () => store().checkIns.checkIn(attempt, gateDecider(at(5), calls))),
        );
        assert.deepEqual(calls, [null]);
        const answers = results.map((r) => (r.kind === 'answered' ? r.answer : assert.fail('unexpected conflict')));
        for (const answer of answers) assert.deepEqual(answer, answers[0]);
        assert.equal(results.filter((r) => r.kind === 'answered' && !r.replay).length, 1);
      });

      test('one key sent concurrently with different bodies: one answer, every other a conflict', async () => {
        const { event, tickets } = await seed(10);
        const key = randomUUID();
        const calls: (TicketRecord | null)[] = [];
        const results = await Promise.all(
          tickets.map((t) =>
            store().checkIns.checkIn(newAttempt(event.eid, t.tid, { idempotency_key: key }), gateDecider(at(5), calls)),
          ),
        );
        assert.equal(calls.length, 1);
        assert.equal(results.filter((r) => r.kind === 'answered' && !r.replay).length, 1);
        assert.equal(results.filter((r) => r.kind === 'conflict').length, 9);
        assert.equal((await store().events.countTickets(event.eid)).checked_in, 1);
      });

      test('every attempt is logged once: a replay writes no line, a conflict is idempotency_conflict', async () => {
        const { event, tickets } = await seed(1);
        const tid = tickets[0]!.tid;
        const first = newAttempt(event.eid, tid, { gate_id: null });
        await store().checkIns.checkIn(first, gateDecider(at(5)));
        await store().checkIns.checkIn({ ...first, received_at: at(7) }, mustNotDecide);
        await store().checkIns.checkIn({ ...first, fingerprint: 'fp:other', received_at: at(8) }, mustNotDecide);
        const other = (await enrol(event.eid)).key.api_key_id;
        const second = newAttempt(event.eid, tid, { api_key_id: other, scanner_id: 'scanner-2' });
        await store().checkIns.checkIn(second, gateDecider(at(9)));
        const { items, has_more } = await store().checkIns.listScans(event.eid, 10, null);
        assert.equal(has_more, false);
        assert.deepEqual(
          items.map((s) => [s.outcome, s.replay, s.idempotency_key, s.received_at]),
          [
            ['valid', false, first.idempotency_key, at(6)],
            ['idempotency_conflict', false, first.idempotency_key, at(8)],
            ['already_used', false, second.idempotency_key, at(6)],
          ],
        );
        assert.deepEqual(items[0], {
          scan_id: items[0]!.scan_id,
          eid: event.eid,
          tid,
          api_key_id: first.api_key_id,
          scanner_id: first.scanner_id,
          scanner_name: 'Gate A phone',
          holder_name: tickets[0]!.holder_name,
          gate_id: null,
          idempotency_key: first.idempotency_key,
          scanned_at: first.scanned_at,
          received_at: first.received_at,
          outcome: 'valid',
          reason: null,
          replay: false,
          admitted_offline: false,
          annulled_at: null,
          manual: false,
        });
        assert.equal(items[2]!.scanner_id, 'scanner-2');
        assert.equal(items[2]!.reason, 'checked in before');
        assert.notEqual(items[1]!.reason, null);
        assert.ok(items.every((s) => typeof s.scan_id === 'number'));
        assert.ok(items.every((s, i) => i === 0 || s.scan_id > items[i - 1]!.scan_id));
      });

      test('listScans pages one event’s scan log with cursors, and names one even at the end', async () => {
        const { event, tickets } = await seed(1);
        const other = await seed(1);
        for (let i = 0; i < 5; i += 1) {
          await store().checkIns.checkIn(newAttempt(event.eid, tickets[0]!.tid), gateDecider(at(5)));
          await store().checkIns.checkIn(newAttempt(other.event.eid, other.tickets[0]!.tid), gateDecider(at(5)));
        }
        const all = (await store().checkIns.listScans(event.eid, 100, null)).items;
        assert.equal(all.length, 5);
        assert.ok(all.every((s) => s.eid === event.eid));
        const pages = [];
        let cursor: number | null = null;
        let more = true;
        while (more) {
          const pageOf: Awaited<ReturnType<Store['checkIns']['listScans']>> = await store().checkIns.listScans(
            event.eid,
            2,
            cursor,
          );
          pages.push(pageOf.items);
          cursor = Number(pageOf.next_cursor);
          more = pageOf.has_more;
        }
        assert.deepEqual(
          pages.map((p) => p.length),
          [2, 2, 1],
        );
        assert.deepEqual(pages.flat(), all);
        // At the end: nothing more now, and the same cursor asks again later from there.
        const end = await store().checkIns.listScans(event.eid, 2, cursor);
        assert.deepEqual([end.items, end.next_cursor, end.has_more], [[], String(cursor), false]);
        await store().checkIns.checkIn(newAttempt(event.eid, tickets[0]!.tid), gateDecider(at(5)));
        const later = await store().checkIns.listScans(event.eid, 2, cursor);
        assert.equal(later.items.length, 1);
        assert.ok(later.items[0]!.scan_id > all.at(-1)!.scan_id);
        assert.deepEqual(await store().checkIns.listScans(newEventId(), 10, null), {
          items: [],
          next_cursor: '0',
          has_more: false,
        });
      });
    });
  });
}
