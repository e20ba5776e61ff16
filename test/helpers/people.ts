import { randomUUID } from 'node:crypto';
import type { Role } from '../../src/domain/roles.ts';
import type { App } from '../../src/http/context.ts';
import { ADMIN_TOKEN } from './app.ts';

/** A password long enough for the contract's 12 characters. */
export const PASSWORD = 'correct horse battery staple';

export interface Person {
  user_id: string;
  email: string;
  role: Role;
  events: string[] | null;
  /** A personal API token (`iat_…`), as a Bearer credential. */
  token: string;
  /** The headers that act as this person. */
  headers: { authorization: string };
  /** The headers of the person's console session (personal tokens are made there, not with a token). */
  session: Record<string, string>;
}

async function expectStatus(what: string, res: { statusCode: number; body: string }, status: number) {
  if (res.statusCode !== status) throw new Error(`${what}: ${res.statusCode} ${res.body}`);
}

/** The console session of a person, signed in with email and password: its cookie and CSRF token. */
export async function signIn(app: App, email: string, password = PASSWORD): Promise<Record<string, string>> {
  const res = await app.inject({ method: 'POST', url: '/admin/v1/session', payload: { email, password } });
  await expectStatus(`sign-in of ${email}`, res, 201);
  const cookie = res.cookies.find((c) => c.name === 'issuer_console_session');
  if (!cookie) throw new Error(`sign-in of ${email} set no session cookie`);
  return {
    cookie: `${cookie.name}=${cookie.value}`,
    'x-csrf-token': (res.json() as { csrf_token: string }).csrf_token,
  };
}

/**
 * A real person with `role` on `events` (null: all), made as an organizer would: invited by the owner
 * (the admin token), the invitation accepted with a password, signed in with email and password, and
 * a personal API token made in that session. Answers the person with the token as a Bearer credential
 * and the session's headers.
 */
export async function personWithRole(app: App, role: Role, events: string[] | null = null): Promise<Person> {
  const email = `${role}-${randomUUID().slice(0, 8)}@example.test`;
  const created = await app.inject({
    method: 'POST',
    url: '/admin/v1/users',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    payload: { email, name: `A ${role}`, role, ...(events === null ? {} : { events }) },
  });
  await expectStatus(`invitation of ${email}`, created, 201);
  const { user_id, invite_url } = created.json() as { user_id: string; invite_url: string };
  const inviteToken = decodeURIComponent(new URL(invite_url).hash.replace(/^#invite=/, ''));
  const accepted = await app.inject({
    method: 'POST',
    url: '/admin/v1/invitations/accept',
    payload: { invite_token: inviteToken, password: PASSWORD },
  });
  await expectStatus(`acceptance by ${email}`, accepted, 200);
  const session = await signIn(app, email);
  const made = await app.inject({
    method: 'POST',
    url: '/admin/v1/api-tokens',
    headers: session,
    payload: { name: 'role matrix' },
  });
  await expectStatus(`personal token of ${email}`, made, 201);
  const token = (made.json() as { token: string }).token;
  return { user_id, email, role, events, token, headers: { authorization: `Bearer ${token}` }, session };
}
