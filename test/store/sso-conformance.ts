import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { describe } from 'node:test';
import type { SsoLinkRecord, UserRecord } from '../../src/store/people-store.ts';
import type { SsoLoginRecord } from '../../src/store/sso-store.ts';
import type { Store } from '../../src/store/store.ts';

/** What the main conformance suite lends to this part of it. */
export interface SsoSuiteContext {
  test: (title: string, fn: () => Promise<void>) => void;
  store: () => Store;
  at: (minutes: number) => string;
}

/**
 * Single sign-on attempts: stored, taken once, the expired ones cleared by later attempts. Links of
 * people to a provider's subjects: one subject per person at each issuer, one person per subject.
 */
export function ssoConformance(c: SsoSuiteContext): void {
  const { test, store, at } = c;
  const attempt = (minutes: number, overrides: Partial<SsoLoginRecord> = {}): SsoLoginRecord => ({
    state_hash: randomBytes(32).toString('base64url'),
    sealed: `v1.${randomBytes(12).toString('base64url')}.sealed`,
    created_at: at(minutes),
    expires_at: at(minutes + 10),
    ...overrides,
  });

  describe('single sign-on attempts', () => {
    test('takeLogin answers a stored attempt with every field, once; an unknown state hash is null', async () => {
      const login = attempt(0);
      await store().sso.putLogin(login);
      assert.deepEqual(await store().sso.takeLogin(login.state_hash), login);
      assert.equal(await store().sso.takeLogin(login.state_hash), null, 'a second take finds nothing');
      assert.equal(await store().sso.takeLogin(attempt(0).state_hash), null);
    });

    test('of concurrent takes of one attempt, exactly one gets it', async () => {
      const login = attempt(0);
      await store().sso.putLogin(login);
      const taken = await Promise.all(Array.from({ length: 8 }, () => store().sso.takeLogin(login.state_hash)));
      assert.equal(taken.filter((t) => t !== null).length, 1);
    });

    test('an attempt is stored whatever its expiry; putLogin deletes those expired by its creation', async () => {
      const stale = attempt(0);
      const live = attempt(5);
      await store().sso.putLogin(stale);
      await store().sso.putLogin(live);
      // Created when `stale` has expired (10 minutes on) and `live` has not.
      const later = attempt(12);
      await store().sso.putLogin(later);
      assert.equal(await store().sso.takeLogin(stale.state_hash), null, 'the expired attempt is gone');
      assert.deepEqual(await store().sso.takeLogin(live.state_hash), live);
      assert.deepEqual(await store().sso.takeLogin(later.state_hash), later);
    });
  });

  const people = () => store().people;
  const ISSUER = 'https://id.example.org';
  const person = async (overrides: Partial<UserRecord> = {}): Promise<UserRecord> => {
    const user: UserRecord = {
      user_id: `usr_${randomUUID()}`,
      email: `${randomUUID()}@example.org`,
      name: 'Kevin Example',
      role: 'owner',
      events: null,
      disabled_at: null,
      password_hash: null,
      created_at: at(0),
      updated_at: at(0),
      ...overrides,
    };
    assert.equal(await people().createUser(user), 'created');
    return user;
  };
  const link = (subject: string, issuer = ISSUER): SsoLinkRecord => ({ issuer, subject, created_at: at(1) });

  describe('single sign-on links', () => {
    test('linkSsoSubject links the person with exactly the address; the subject then finds them, at its issuer only', async () => {
      const kevin = await person();
      const sub = randomUUID();
      assert.equal(await people().getUserBySsoSubject(ISSUER, sub), null);
      assert.equal(await people().linkSsoSubject(link(sub), kevin.email.toUpperCase()), 'unknown', 'compared exactly');
      assert.equal(await people().linkSsoSubject(link(sub), `${kevin.email} `), 'unknown');
      assert.equal(await people().getUserBySsoSubject(ISSUER, sub), null, 'nothing linked');
      assert.deepEqual(await people().linkSsoSubject(link(sub), kevin.email), kevin);
      assert.deepEqual(await people().getUserBySsoSubject(ISSUER, sub), kevin);
      assert.equal(await people().getUserBySsoSubject('https://other.example.org', sub), null);
      assert.equal(await people().getUserBySsoSubject(ISSUER, sub.toUpperCase()), null);
      // The same subject again, whatever address it comes with: its person.
      assert.deepEqual(await people().linkSsoSubject(link(sub), 'someone-else@example.org'), kevin);
    });

    test('a person linked to a subject is not linked to another of the same issuer; another issuer links afresh', async () => {
      const kevin = await person();
      const first = randomUUID();
      const second = randomUUID();
      await people().linkSsoSubject(link(first), kevin.email);
      assert.equal(await people().linkSsoSubject(link(second), kevin.email), 'linked');
      assert.equal(await people().getUserBySsoSubject(ISSUER, second), null, 'nothing stored');
      const elsewhere = link(second, 'https://other.example.org');
      assert.deepEqual(await people().linkSsoSubject(elsewhere, kevin.email), kevin);
      assert.deepEqual(await people().getUserBySsoSubject(ISSUER, first), kevin);
    });

    test('a disabled person is answered unlinked; deleting a person deletes their links', async () => {
      const off = await person({ disabled_at: at(0) });
      const sub = randomUUID();
      assert.deepEqual(await people().linkSsoSubject(link(sub), off.email), off);
      assert.equal(await people().getUserBySsoSubject(ISSUER, sub), null);
      const gone = await person();
      await people().linkSsoSubject(link(sub), gone.email);
      assert.equal(await people().deleteUser(gone.user_id), true);
      assert.equal(await people().getUserBySsoSubject(ISSUER, sub), null);
      const back = await person({ email: gone.email });
      assert.deepEqual(await people().linkSsoSubject(link(randomUUID()), back.email), back, 'the address links afresh');
    });

    test('first sign-ins at once: of 8 subjects with one address one is linked; 8 of one subject all get its person', async () => {
      const kevin = await person();
      const subjects = Array.from({ length: 8 }, () => randomUUID());
      const answers = await Promise.all(subjects.map((sub) => people().linkSsoSubject(link(sub), kevin.email)));
      assert.equal(answers.filter((a) => a !== 'linked').length, 1, JSON.stringify(answers));
      assert.equal(answers.filter((a) => a === 'linked').length, 7);
      const winner = subjects[answers.findIndex((a) => a !== 'linked')]!;
      assert.deepEqual(await people().getUserBySsoSubject(ISSUER, winner), kevin);
      const ada = await person();
      const sub = randomUUID();
      const same = await Promise.all(Array.from({ length: 8 }, () => people().linkSsoSubject(link(sub), ada.email)));
      for (const answer of same) assert.deepEqual(answer, ada);
    });
  });
}
