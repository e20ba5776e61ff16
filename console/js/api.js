/**
 * The console's only way to the issuer: the admin API, authenticated by the HttpOnly session cookie
 * the browser sends by itself. Writes carry the session's CSRF token, which lives in this module's
 * memory only (never in storage): a reload asks the session for it again.
 */

import { clearSession, setSession } from './access.js';

/** The admin API, relative to the console's own address (/console/ -> /admin/v1). */
const API_BASE = new URL('../admin/v1', document.baseURI).pathname;

let csrfToken = null;
let onSignedOut = () => {};

/**
 * The last answer of each path read (its ETag and data), in this module's memory only: a poll sends
 * the tag, and the issuer answers 304 without a body while nothing changed. The latest few paths only.
 */
const lastAnswers = new Map();
const KEPT_ANSWERS = 64;

/** An answer outside 2xx: the status and the envelope's code and message. */
export class ApiError extends Error {
  constructor(status, body) {
    const error = body?.error ?? {};
    // A refusal for the role (a control the console should not have offered, or a role changed since)
    // is said plainly, whatever the issuer's own words.
    const forRole = status === 403 && error.details?.reason === 'role';
    super(forRole ? 'your role does not allow this' : (error.message ?? `the issuer answered ${status}`));
    this.forRole = forRole;
    this.status = status;
    this.code = error.code ?? 'UNKNOWN';
    this.details = error.details ?? {};
  }
}

/** Called whenever the issuer says the session is gone (401), so the console shows the sign-in. */
export function whenSignedOut(callback) {
  onSignedOut = callback;
}

/** The URL of an admin API path, for images (QR codes) that the browser loads itself. */
export const apiUrl = (path) => `${API_BASE}${path}`;

/** Calls the admin API; resolves to the JSON answer (null for 204), rejects with ApiError. */
export async function api(method, path, body) {
  const headers = { accept: 'application/json' };
  const kept = method === 'GET' ? lastAnswers.get(path) : undefined;
  if (kept) headers['if-none-match'] = kept.etag;
  if (method !== 'GET') {
    headers['content-type'] = 'application/json';
    headers['x-csrf-token'] = csrfToken ?? '';
  }
  const response = await fetch(apiUrl(path), {
    method,
    headers,
    credentials: 'same-origin',
    cache: 'no-store',
    ...(method === 'GET' ? {} : { body: JSON.stringify(body ?? {}) }),
  });
  if (response.status === 204) return null;
  // A copy: a view may change what it was given.
  if (response.status === 304 && kept) return structuredClone(kept.data);
  const data = await response.json().catch(() => null);
  const etag = response.headers.get('etag');
  if (method === 'GET' && response.ok && etag) {
    lastAnswers.delete(path);
    lastAnswers.set(path, { etag, data });
    if (lastAnswers.size > KEPT_ANSWERS) lastAnswers.delete(lastAnswers.keys().next().value);
  }
  if (!response.ok) {
    const error = new ApiError(response.status, data);
    if (response.status === 401 && !path.startsWith('/session')) {
      csrfToken = null;
      lastAnswers.clear();
      onSignedOut();
    }
    throw error;
  }
  return data;
}

/** Exchanges the admin token for a session cookie; the token itself is not kept anywhere. */
export async function signIn(adminToken) {
  started(await api('POST', '/session', { admin_token: adminToken }));
}

/** Signs a person in with their email and password (kept nowhere either). */
export async function signInWithPassword(email, password) {
  started(await api('POST', '/session', { email, password }));
}

/** How one may sign in here: `{password, sso}`; password only when the issuer does not say. */
export async function signInOptions() {
  try {
    const options = await api('GET', '/session/options');
    return { password: options.password !== false, sso: options.sso === true };
  } catch {
    return { password: true, sso: false };
  }
}

/** Where the browser goes to sign in through the organization's single sign-on. */
export const ssoStartUrl = () => apiUrl('/sso/start');

/** Sets a password through an invitation; resolves to `{user_id, email}`. */
export const acceptInvitation = (inviteToken, password) =>
  api('POST', '/invitations/accept', { invite_token: inviteToken, password });

/** A session answer: its CSRF token, and who is signed in (what the console offers follows it). */
function started(answer) {
  csrfToken = answer.csrf_token;
  setSession(answer);
}

/** True when the browser holds a live session (and learns its CSRF token and who is signed in). */
export async function resumeSession() {
  try {
    started(await api('GET', '/session'));
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return false;
    throw error;
  }
}

/** Ends the session on the issuer; the cookie is cleared by its answer. */
export async function signOut() {
  try {
    await api('DELETE', '/session');
  } finally {
    csrfToken = null;
    lastAnswers.clear();
    clearSession();
  }
}
