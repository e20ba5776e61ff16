import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { App } from '../../src/http/context.ts';
import { ADMIN_TOKEN } from './app.ts';

export const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };
/** A password of the contract's 12 characters and more. */
export const GOOD_PASSWORD = 'correct horse battery staple';

/** The invitation token in an invite_url (what follows `#invite=`). */
export const inviteTokenOf = (inviteUrl: string): string => new URL(inviteUrl).hash.replace(/^#invite=/, '');

/** Adds a person with the admin token; answers the person as created and their invitation token. */
export async function addPerson(app: App, fields: Record<string, unknown> = {}) {
  const payload = {
    email: `p-${randomUUID().slice(0, 8)}@example.test`,
    name: 'Grace Hopper',
    role: 'manager',
    ...fields,
  };
  const res = await app.inject({ method: 'POST', url: '/admin/v1/users', headers: ADMIN, payload });
  assert.equal(res.statusCode, 201, res.body);
  const body = res.json() as { user_id: string; email: string; invite_url: string };
  return { ...body, inviteToken: inviteTokenOf(body.invite_url) };
}

export function accept(app: App, inviteToken: string, password = GOOD_PASSWORD) {
  return app.inject({
    method: 'POST',
    url: '/admin/v1/invitations/accept',
    payload: { invite_token: inviteToken, password },
  });
}

export function postSession(app: App, email: string, password: string) {
  return app.inject({ method: 'POST', url: '/admin/v1/session', payload: { email, password } });
}

/** Signs a person in; answers the headers of a cookie-authenticated request (cookie and CSRF token). */
export async function sessionHeaders(app: App, email: string, password = GOOD_PASSWORD) {
  const res = await postSession(app, email, password);
  assert.equal(res.statusCode, 201, res.body);
  const cookie = res.cookies.find((c) => c.name === 'issuer_console_session')!;
  return {
    cookie: `${cookie.name}=${cookie.value}`,
    'x-csrf-token': (res.json() as { csrf_token: string }).csrf_token,
  };
}

/** A person who accepted their invitation: their record, password set. */
export async function activePerson(app: App, fields: Record<string, unknown> = {}) {
  const person = await addPerson(app, fields);
  const res = await accept(app, person.inviteToken);
  assert.equal(res.statusCode, 200, res.body);
  return person;
}

/** Makes a personal API token with the given headers; answers the creation's body. */
export async function makeToken(app: App, headers: Record<string, string>, payload: object = { name: 'script' }) {
  const res = await app.inject({ method: 'POST', url: '/admin/v1/api-tokens', headers, payload });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { token_id: string; token: string; name: string; expires_at: string | null };
}
