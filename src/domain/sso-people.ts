/**
 * Who a single sign-on is for. A person is linked to the provider's (issuer, subject) at their first
 * single sign-on, and found by that link afterwards, whatever address the provider says then. The
 * first time, only a verified email (email_verified true) names a person, compared strictly (see
 * `emailKey`); an address nobody has is refused, unless OIDC_DEFAULT_ROLE says to create its person.
 */
import { noteAudit, outsideAudit } from '../store/audit-context.ts';
import type { SsoLinkRecord, UserRecord } from '../store/people-store.ts';
import type { Store } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { newUserId } from './ids.ts';
import type { Role } from './roles.ts';
import type { SsoIdentity, SsoRefusal } from './sso.ts';
import { toStored } from './time.ts';

/**
 * A person created by single sign-on reaches every event as an owner or manager; as a supervisor or
 * viewer, no event until an owner grants some (a person nobody chose must not see every guest list).
 */
export function defaultEvents(role: Role): string[] | null {
  return role === 'owner' || role === 'manager' ? null : [];
}

/** The longest name kept from the provider (as the admin API allows). */
const NAME_MAX = 200;

/**
 * The address a provider vouches for, as it is compared with people's: ASCII spaces at either end
 * removed and ASCII letters in lower case, nothing else. No Unicode case folding (the Kelvin sign
 * U+212A folds to `k`, so `\u212Aevin@…` would be `kevin@…`) and no other trimming: a provider's
 * address is someone's only when it is that address.
 */
export function emailKey(email: string): string {
  return email.replace(/^ +| +$/g, '').replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

/**
 * The person to sign in, or why nobody: `unverified` (no email, or the provider does not vouch for
 * it), `unknown` (nobody has it and there is no default role), `linked` (its person is linked to
 * another subject of this provider), `disabled`.
 */
export async function personOf(
  store: Store,
  clock: Clock,
  identity: SsoIdentity,
  defaultRole: Role | null,
): Promise<UserRecord | SsoRefusal> {
  const known = await store.people.getUserBySsoSubject(identity.issuer, identity.subject);
  const user = known ?? (await firstSignOn(store, clock, identity, defaultRole));
  if (typeof user === 'string') return user;
  return user.disabled_at === null ? user : 'disabled';
}

/** A subject seen for the first time: the person with its verified address, linked to it. */
async function firstSignOn(
  store: Store,
  clock: Clock,
  identity: SsoIdentity,
  defaultRole: Role | null,
): Promise<UserRecord | SsoRefusal> {
  if (identity.email === null || !identity.emailVerified) return 'unverified';
  const email = emailKey(identity.email);
  if (email === '') return 'unverified';
  const link: SsoLinkRecord = { issuer: identity.issuer, subject: identity.subject, created_at: toStored(clock.now()) };
  // The link is part of the sign-in (its entry records it), never a person's creation.
  const linkTo = () => outsideAudit(() => store.people.linkSsoSubject(link, email));
  const found = await linkTo();
  if (found !== 'unknown' || defaultRole === null) return found;
  const created: UserRecord = {
    user_id: newUserId(),
    email,
    name: (identity.name ?? email).slice(0, NAME_MAX),
    role: defaultRole,
    events: defaultEvents(defaultRole),
    disabled_at: null,
    password_hash: null,
    created_at: link.created_at,
    updated_at: link.created_at,
  };
  noteAudit({ target: created.user_id });
  // Two first sign-ins at once (two tabs, two instances): the one that lost finds the other's person.
  await store.people.createUser(created);
  return linkTo();
}
