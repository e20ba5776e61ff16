import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe } from 'node:test';
import { hashSecret, newSecret } from '../../src/domain/ids.ts';
import type { ApiTokenRecord, InviteRecord, UserRecord } from '../../src/store/people-store.ts';
import type { AdminSessionRecord, Store } from '../../src/store/store.ts';

/** What the main conformance suite lends to this part of it. */
export interface PeopleSuiteContext {
  test: (title: string, fn: () => Promise<void>) => void;
  store: () => Store;
  at: (minutes: number) => string;
}

let serial = 0;
/** Ids are compared as text: a serial after a random prefix keeps them increasing within one run. */
const nextId = (prefix: string) => `${prefix}${String(++serial).padStart(6, '0')}${randomUUID().slice(0, 8)}`;

/** People, invitations, sign-in failures, personal tokens and sessions of a person: part of the one suite. */
export function peopleConformance(c: PeopleSuiteContext): void {
  const { test, store, at } = c;
  const people = () => store().people;

  const newUser = (overrides: Partial<UserRecord> = {}): UserRecord => ({
    user_id: nextId('usr_'),
    email: `${randomUUID()}@example.org`,
    name: 'Grace Hopper',
    role: 'supervisor',
    events: ['evt_A', 'evt_B'],
    disabled_at: null,
    password_hash: null,
    created_at: at(0),
    updated_at: at(0),
    ...overrides,
  });
  const person = async (overrides: Partial<UserRecord> = {}) => {
    const user = newUser(overrides);
    assert.equal(await people().createUser(user), 'created');
    return user;
  };
  const invite = (userId: string, overrides: Partial<InviteRecord> = {}): InviteRecord => ({
    invite_hash: hashSecret(newSecret('inv_')),
    user_id: userId,
    created_at: at(0),
    expires_at: at(72 * 60),
    used_at: null,
    ...overrides,
  });
  const token = (userId: string, overrides: Partial<ApiTokenRecord> = {}): ApiTokenRecord => ({
    token_id: nextId('tok_'),
    token_hash: hashSecret(newSecret('iat_')),
    user_id: userId,
    name: 'deploy script',
    created_at: at(0),
    expires_at: null,
    last_used_at: null,
    ...overrides,
  });
  const session = (userId: string | null): AdminSessionRecord => ({
    session_hash: hashSecret(newSecret('as_')),
    admin_token_tag: userId === null ? hashSecret('admin token tag') : 'person',
    user_id: userId,
    created_at: at(0),
    last_seen_at: at(0),
    expires_at: at(24 * 60),
  });
  const sessionOf = async (userId: string | null) => {
    const s = session(userId);
    await store().sessions.createAdminSession(s);
    return s;
  };

  describe('people', () => {
    test('createUser round-trips every field; an address taken by another person is refused', async () => {
      const user = await person({ password_hash: 'scrypt$x', events: null, role: 'owner' });
      assert.deepEqual(await people().getUser(user.user_id), user);
      assert.deepEqual(await people().getUserByEmail(user.email), user);
      const scoped = await person();
      assert.deepEqual((await people().getUser(scoped.user_id))!.events, ['evt_A', 'evt_B']);
      assert.equal(await people().createUser(newUser({ email: user.email })), 'email_taken');
      assert.equal(await people().getUser('usr_unknown'), null);
      assert.equal(await people().getUserByEmail('nobody@example.org'), null);
    });

    test('listUsers pages in user_id order', async () => {
      const made = [await person(), await person(), await person()];
      const first = await people().listUsers(2, made[0]!.user_id.slice(0, 4));
      const all: UserRecord[] = [];
      let cursor: string | null = null;
      do {
        const pageOf = await people().listUsers(2, cursor);
        all.push(...pageOf.items);
        cursor = pageOf.next_cursor;
      } while (cursor !== null);
      const ids = all.map((u) => u.user_id);
      assert.deepEqual(ids, [...ids].sort());
      for (const u of made) assert.ok(ids.includes(u.user_id));
      assert.equal(first.items.length, 2);
      assert.notEqual(first.next_cursor, null);
    });

    test('updateUser changes only the named fields; disabling keeps its first instant and ends sessions', async () => {
      const user = await person();
      const renamed = await people().updateUser(user.user_id, { name: 'G. Hopper', events: null }, at(5));
      assert.deepEqual(renamed, { ...user, name: 'G. Hopper', events: null, updated_at: at(5) });
      const own = await sessionOf(user.user_id);
      const other = await sessionOf(null);
      const disabled = await people().updateUser(user.user_id, { disabled: true, role: 'viewer' }, at(10));
      assert.deepEqual([disabled!.disabled_at, disabled!.role], [at(10), 'viewer']);
      assert.equal(await store().sessions.getAdminSession(own.session_hash), null);
      assert.notEqual(await store().sessions.getAdminSession(other.session_hash), null);
      assert.equal((await people().updateUser(user.user_id, { disabled: true }, at(20)))!.disabled_at, at(10));
      assert.equal((await people().updateUser(user.user_id, { disabled: false }, at(30)))!.disabled_at, null);
      assert.equal(await people().updateUser('usr_unknown', { name: 'x' }, at(30)), null);
    });

    test('deleteUser removes the person with their sessions, invitations and tokens', async () => {
      const user = await person();
      const other = await person();
      const own = await sessionOf(user.user_id);
      const kept = await sessionOf(other.user_id);
      const inv = invite(user.user_id);
      assert.equal(await people().createInvite(inv), true);
      const tok = token(user.user_id);
      await people().createApiToken(tok);
      assert.equal(await people().deleteUser(user.user_id), true);
      assert.equal(await people().getUser(user.user_id), null);
      assert.equal(await store().sessions.getAdminSession(own.session_hash), null);
      assert.notEqual(await store().sessions.getAdminSession(kept.session_hash), null);
      assert.equal(await people().findApiToken(tok.token_hash), null);
      assert.equal(await people().acceptInvite(inv.invite_hash, 'scrypt$y', at(1)), null);
      assert.equal(await people().deleteUser(user.user_id), false);
      // The address is free again.
      assert.equal(await people().createUser(newUser({ email: user.email })), 'created');
    });
  });

  describe('invitations', () => {
    test('acceptInvite sets the password once, ends the sessions; a new invitation ends the old', async () => {
      const user = await person();
      const old = invite(user.user_id);
      assert.equal(await people().createInvite(old), true);
      const fresh = invite(user.user_id);
      assert.equal(await people().createInvite(fresh), true);
      assert.equal(await people().acceptInvite(old.invite_hash, 'scrypt$old', at(1)), null);
      const s = await sessionOf(user.user_id);
      const accepted = await people().acceptInvite(fresh.invite_hash, 'scrypt$new', at(2));
      assert.deepEqual(accepted, { ...user, password_hash: 'scrypt$new', updated_at: at(2) });
      assert.equal(await store().sessions.getAdminSession(s.session_hash), null);
      assert.equal(await people().acceptInvite(fresh.invite_hash, 'scrypt$again', at(3)), null);
      assert.equal((await people().getUser(user.user_id))!.password_hash, 'scrypt$new');
      assert.equal(await people().createInvite(invite('usr_unknown')), false);
      assert.equal(await people().acceptInvite(hashSecret('never issued'), 'scrypt$z', at(3)), null);
    });

    test('inviteOpen says what acceptInvite would take, and takes nothing', async () => {
      const user = await person();
      const inv = invite(user.user_id, { expires_at: at(60) });
      await people().createInvite(inv);
      assert.equal(await people().inviteOpen(hashSecret('never issued'), at(1)), false);
      assert.equal(await people().inviteOpen(inv.invite_hash, at(1)), true);
      assert.equal(await people().inviteOpen(inv.invite_hash, at(1)), true, 'looking takes nothing');
      assert.equal(await people().inviteOpen(inv.invite_hash, at(60)), false, 'expired at its instant');
      assert.notEqual(await people().acceptInvite(inv.invite_hash, 'scrypt$x', at(2)), null);
      assert.equal(await people().inviteOpen(inv.invite_hash, at(3)), false, 'used');
    });

    test('an invitation expires at its instant; disabling a person ends theirs, enabling brings none back', async () => {
      const user = await person();
      const inv = invite(user.user_id, { expires_at: at(60) });
      await people().createInvite(inv);
      assert.equal(await people().acceptInvite(inv.invite_hash, 'scrypt$late', at(60)), null);
      const other = await person();
      const second = invite(other.user_id);
      await people().createInvite(second);
      await people().updateUser(other.user_id, { disabled: true }, at(1));
      assert.equal(await people().acceptInvite(second.invite_hash, 'scrypt$d', at(2)), null);
      await people().updateUser(other.user_id, { disabled: false }, at(3));
      assert.equal(await people().acceptInvite(second.invite_hash, 'scrypt$e', at(4)), null);
      // A new invitation made after enabling works; another change than disabling leaves it.
      const third = invite(other.user_id);
      await people().createInvite(third);
      await people().updateUser(other.user_id, { name: 'G. Hopper' }, at(5));
      assert.equal((await people().acceptInvite(third.invite_hash, 'scrypt$f', at(6)))!.password_hash, 'scrypt$f');
    });

    test("acceptInvite deletes the person's personal tokens, and only theirs", async () => {
      const user = await person();
      const other = await person();
      const own = token(user.user_id);
      const kept = token(other.user_id);
      await people().createApiToken(own);
      await people().createApiToken(kept);
      const inv = invite(user.user_id);
      await people().createInvite(inv);
      assert.notEqual(await people().acceptInvite(inv.invite_hash, 'scrypt$new', at(1)), null);
      assert.equal(await people().findApiToken(own.token_hash), null);
      assert.notEqual(await people().findApiToken(kept.token_hash), null);
    });

    test('concurrent takers of one invitation: exactly one wins', async () => {
      const user = await person();
      const inv = invite(user.user_id);
      await people().createInvite(inv);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => people().acceptInvite(inv.invite_hash, `scrypt$${i}`, at(1))),
      );
      const winners = results.filter((r) => r !== null);
      assert.equal(winners.length, 1);
      assert.equal((await people().getUser(user.user_id))!.password_hash, winners[0]!.password_hash);
    });
  });

  describe('sign-in failures', () => {
    test('attempts are recorded per address unless held, read from an instant, cleared, and forgotten', async () => {
      const email = `${randomUUID()}@example.org`;
      const other = `${randomUUID()}@example.org`;
      const seen: string[][] = [];
      const record = (address: string, when: string, since: string, hold = false) =>
        people().recordSignInAttempt(address, when, since, (earlier) => {
          seen.push(earlier);
          return hold;
        });
      assert.equal(await record(email, at(1), at(-30)), true);
      assert.equal(await record(email, at(2), at(-30)), true);
      assert.equal(await record(other, at(2), at(-30)), true);
      assert.deepEqual(seen, [[], [at(1)], []], 'each attempt reads the earlier ones of its address');
      assert.equal(await record(email, at(3), at(0), true), false, 'held: nothing recorded');
      assert.deepEqual(seen.at(-1), [at(1), at(2)]);
      await record(email, at(4), at(0));
      assert.deepEqual(seen.at(-1), [at(1), at(2)], 'the held attempt was not recorded');
      await record(other, at(40), at(10));
      assert.deepEqual(seen.at(-1), [], 'failures before the instant are forgotten');
      await record(email, at(41), at(-60));
      assert.deepEqual(seen.at(-1), [], "every address's");
      await people().clearSignInFailures(other);
      await record(other, at(42), at(-60));
      assert.deepEqual(seen.at(-1), []);
    });

    test('attempts made at once on one address each see the ones before them', async () => {
      const email = `${randomUUID()}@example.org`;
      const counts: number[] = [];
      await Promise.all(
        Array.from({ length: 20 }, () =>
          people().recordSignInAttempt(email, at(1), at(0), (earlier) => {
            counts.push(earlier.length);
            return false;
          }),
        ),
      );
      assert.deepEqual(
        counts.sort((a, b) => a - b),
        Array.from({ length: 20 }, (_, i) => i),
      );
    });
  });

  describe('personal API tokens', () => {
    test("findApiToken answers the token with its person in one record; disabling deletes the person's tokens", async () => {
      const user = await person({ role: 'manager', events: null });
      const tok = token(user.user_id, { expires_at: at(600) });
      await people().createApiToken(tok);
      assert.deepEqual(await people().findApiToken(tok.token_hash), { token: tok, user });
      await people().updateUser(user.user_id, { disabled: true }, at(3));
      assert.equal(await people().findApiToken(tok.token_hash), null);
      await people().updateUser(user.user_id, { disabled: false }, at(4));
      assert.equal(await people().findApiToken(tok.token_hash), null, 'enabling brings no token back');
      assert.equal(await people().findApiToken(hashSecret('never issued')), null);
    });

    test('touchApiToken only moves last_used_at forward', async () => {
      const user = await person();
      const tok = token(user.user_id);
      await people().createApiToken(tok);
      await people().touchApiToken(tok.token_id, at(30));
      await people().touchApiToken(tok.token_id, at(10));
      assert.equal((await people().findApiToken(tok.token_hash))!.token.last_used_at, at(30));
    });

    test("listApiTokens pages one person's or everyone's; deleteApiToken of another's token is refused", async () => {
      const a = await person();
      const b = await person();
      const mine = [token(a.user_id), token(a.user_id), token(a.user_id)];
      const theirs = token(b.user_id);
      for (const t of [...mine, theirs]) await people().createApiToken(t);
      const first = await people().listApiTokens(a.user_id, 2, null);
      const second = await people().listApiTokens(a.user_id, 2, first.next_cursor);
      assert.deepEqual([...first.items, ...second.items], mine);
      assert.equal(second.next_cursor, null);
      const everyone = (await people().listApiTokens(null, 1000, null)).items.map((t) => t.token_id);
      for (const t of [...mine, theirs]) assert.ok(everyone.includes(t.token_id));
      assert.equal(await people().deleteApiToken(theirs.token_id, a.user_id), false);
      assert.notEqual(await people().findApiToken(theirs.token_hash), null);
      assert.equal(await people().deleteApiToken(mine[0]!.token_id, a.user_id), true);
      assert.equal(await people().deleteApiToken(theirs.token_id, null), true);
      assert.equal(await people().findApiToken(theirs.token_hash), null);
      assert.equal(await people().deleteApiToken(theirs.token_id, null), false);
    });
  });

  describe('sessions of a person', () => {
    test('getSession joins the person; a session of the admin token has none; endSessionsOf ends them all', async () => {
      const user = await person();
      const one = await sessionOf(user.user_id);
      const two = await sessionOf(user.user_id);
      const tokenSession = await sessionOf(null);
      assert.deepEqual(await people().getSession(one.session_hash), { session: one, user });
      assert.deepEqual(await people().getSession(tokenSession.session_hash), { session: tokenSession, user: null });
      assert.equal(await people().getSession(hashSecret('never issued')), null);
      assert.equal(await people().endSessionsOf(user.user_id), 2);
      assert.equal(await people().getSession(two.session_hash), null);
      assert.notEqual(await people().getSession(tokenSession.session_hash), null);
    });
  });
}
