import type { UserRecord } from '../store/people-store.ts';
import type { Store } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { userView } from './people.ts';
import { toStored } from './time.ts';

/**
 * Where a person's invitation stands: `pending` while a link is open (neither used nor expired: a new
 * link would end it), `accepted` once they set a password and no link is open, null when neither (the
 * last link expired or was ended unused, or they never set a password).
 */
export type InvitationState = 'pending' | 'accepted' | null;

export function invitationState(user: UserRecord, linkOpen: boolean): InvitationState {
  if (linkOpen) return 'pending';
  return user.password_hash !== null ? 'accepted' : null;
}

/** What the admin API shows of these people, each with where their invitation stands (one store read). */
export async function peopleViews(store: Store, clock: Clock, users: UserRecord[]) {
  const open = await store.people.openInvitations(
    users.map((user) => user.user_id),
    toStored(clock.now()),
  );
  return users.map((user) => ({ ...userView(user), invitation: invitationState(user, open.has(user.user_id)) }));
}

/** One person as the admin API shows them, with their invitation's state. */
export const personView = async (store: Store, clock: Clock, user: UserRecord) =>
  (await peopleViews(store, clock, [user]))[0]!;
