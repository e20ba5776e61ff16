import assert from 'node:assert/strict';
import type { App } from '../../src/http/context.ts';
import { ADMIN_TOKEN } from './app.ts';

/** Anything with the app to call: a TestIssuer, or an app built by hand. */
type WithApp = { app: App };

/** The console's session cookie. */
export const SESSION = 'issuer_console_session';

/** Signs in through the API; answers the cookie's value, its Set-Cookie line and the CSRF token. */
export async function signIn(issuer: WithApp) {
  const res = await issuer.app.inject({
    method: 'POST',
    url: '/admin/v1/session',
    payload: { admin_token: ADMIN_TOKEN },
  });
  assert.equal(res.statusCode, 201, res.body);
  const setCookie = String(res.headers['set-cookie']);
  const value = res.cookies.find((c) => c.name === SESSION)!.value;
  return { cookie: `${SESSION}=${value}`, value, setCookie, csrf: (res.json() as { csrf_token: string }).csrf_token };
}

/** A request with the given Cookie header (and more headers, and a body). */
export function asCookie(
  issuer: WithApp,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  cookie: string,
  headers: Record<string, string> = {},
  payload?: object,
) {
  return issuer.app.inject({ method, url, headers: { cookie, ...headers }, ...(payload ? { payload } : {}) });
}

/** A valid event body. */
export const newEvent = { name: 'Cookie Fest', event_date: '2026-06-02T18:00:00Z' };
