import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe } from 'node:test';
import type { SsoLoginRecord } from '../../src/store/sso-store.ts';
import type { Store } from '../../src/store/store.ts';

/** What the main conformance suite lends to this part of it. */
export interface SsoSuiteContext {
  test: (title: string, fn: () => Promise<void>) => void;
  store: () => Store;
  at: (minutes: number) => string;
}

/** Single sign-on attempts: stored, taken once, the expired ones cleared by later attempts. */
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
}
