import type { UserRecord } from '../store/people-store.ts';
import type { Store } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { IssuerError } from './errors.ts';
import { normalizeEmail } from './people.ts';
import { DECOY_HASH, type Derive, verifyPassword } from './passwords.ts';
import { toStored } from './time.ts';

/** This many failed sign-ins of one address within FAILURE_WINDOW_MS hold the address... */
export const HOLD_AFTER_FAILURES = 10;
export const FAILURE_WINDOW_MS = 15 * 60_000;
/** ...for this long from the failure that reached the count. */
export const HOLD_MS = 15 * 60_000;
/** How far back failures are read (and kept): enough to see a hold and the failures that made it. */
const LOOKBACK_MS = 2 * (FAILURE_WINDOW_MS + HOLD_MS);

/** The one answer of every refused sign-in: a wrong password, an unknown address, a hold, a disabled person. */
export const SIGN_IN_REFUSED = 'the email address and password do not match a person who may sign in';
export const signInRefused = (): IssuerError => new IssuerError('UNAUTHORIZED', SIGN_IN_REFUSED);

/**
 * When the latest hold of an address ends (ms; -Infinity without one), from its failures (ms, oldest
 * first). A failure during a hold does not count towards another: a hold lasts HOLD_MS from the failure
 * that made it, however many attempts follow (they are refused without being tried).
 */
export function holdEnd(failures: readonly number[]): number {
  let end = -Infinity;
  const counted: number[] = [];
  for (const at of failures) {
    if (at < end) continue;
    counted.push(at);
    while (counted.length > 0 && counted[0]! <= at - FAILURE_WINDOW_MS) counted.shift();
    if (counted.length >= HOLD_AFTER_FAILURES) {
      end = at + HOLD_MS;
      counted.length = 0;
    }
  }
  return end;
}

export type SignInResult =
  | { ok: true; user: UserRecord }
  | { ok: false; why: 'held' | 'no_match' | 'disabled'; email: string; user: UserRecord | null };

/**
 * Checks an address and password. The attempt is recorded as a failure of the address (known or not)
 * before the password is tried, in one step with reading the failures before it, so guesses made at
 * once on any number of instances count one after the other: past the tenth the address is held. A
 * held address is refused without trying the password (and without recording the attempt); otherwise
 * the password is always hashed, against a decoy hash when the address is unknown or its person has no
 * password yet, so a refusal takes the same time whatever its reason. The right password forgets the
 * address's failures, its own attempt with them.
 */
export async function checkPassword(
  store: Store,
  clock: Clock,
  derive: Derive,
  email: string,
  password: string,
): Promise<SignInResult> {
  const address = normalizeEmail(email);
  const now = clock.now().getTime();
  const since = toStored(new Date(now - LOOKBACK_MS));
  const held = (earlier: string[]) => now < holdEnd(earlier.map((at) => Date.parse(at)));
  if (!(await store.people.recordSignInAttempt(address, toStored(new Date(now)), since, held))) {
    return { ok: false, why: 'held', email: address, user: null };
  }
  const user = await store.people.getUserByEmail(address);
  const matches = await verifyPassword(password, user?.password_hash ?? DECOY_HASH, derive);
  if (user !== null && user.password_hash !== null && matches) {
    await store.people.clearSignInFailures(address);
    if (user.disabled_at !== null) return { ok: false, why: 'disabled', email: address, user };
    return { ok: true, user };
  }
  return { ok: false, why: 'no_match', email: address, user };
}
