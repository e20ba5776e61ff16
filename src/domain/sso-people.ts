/**
 * Who a single sign-on is for: the person whose email the provider vouches for. Only a verified email
 * (email_verified true) names a person; an address nobody has is refused, unless OIDC_DEFAULT_ROLE
 * says to create its person at the first sign-in.
 */
import type { UserRecord } from '../store/people-store.ts';
import type { Store } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { newUserId } from './ids.ts';
import { normalizeEmail } from './people.ts';
import type { Role } from './roles.ts';
import type { SsoIdentity, SsoRefusal } from './sso.ts';
import { toStored } from './time.ts';
import { noteAudit } from '../store/audit-context.ts';

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
 * The person to sign in, or why nobody: `unverified` (no email, or the provider does not vouch for
 * it), `unknown` (nobody has it and there is no default role), `disabled`.
 */
export async function personOf(
  store: Store,
  clock: Clock,
  identity: SsoIdentity,
  defaultRole: Role | null,
): Promise<UserRecord | SsoRefusal> {
  if (identity.email === null || !identity.emailVerified) return 'unverified';
  const email = normalizeEmail(identity.email);
  let user = await store.people.getUserByEmail(email);
  if (user === null) {
    if (defaultRole === null) return 'unknown';
    const now = toStored(clock.now());
    const created: UserRecord = {
      user_id: newUserId(),
      email,
      name: (identity.name ?? email).slice(0, NAME_MAX),
      role: defaultRole,
      events: defaultEvents(defaultRole),
      disabled_at: null,
      password_hash: null,
      created_at: now,
      updated_at: now,
    };
    noteAudit({ target: created.user_id });
    // Two first sign-ins at once (two tabs, two instances): the one that lost finds the other's person.
    user = (await store.people.createUser(created)) === 'created' ? created : await store.people.getUserByEmail(email);
    if (user === null) return 'unknown';
  }
  return user.disabled_at === null ? user : 'disabled';
}
