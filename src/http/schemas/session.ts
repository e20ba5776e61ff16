import { Type } from '@sinclair/typebox';
import { named } from './components.ts';
import { empty, errors, json, NoAuth, Strict, Text } from './common.ts';

const ConsoleAuth = [{ ConsoleSession: [] as string[] }];
const session = { tags: ['console'] };

const SessionAnswer = named(
  'ConsoleSessionInfo',
  Type.Object(
    {
      csrf_token: Type.String({ description: 'send it as X-CSRF-Token with every cookie-authenticated write' }),
      expires_at: Type.String({ description: 'when the session ends if unused from now on (ISO 8601 UTC)' }),
    },
    { description: 'A console session: its CSRF token and when it ends' },
  ),
);

export const createSessionSchema = {
  ...session,
  security: NoAuth,
  operationId: 'createConsoleSession',
  summary: 'Sign in to the console: exchange the admin token for a session cookie',
  description:
    'Sets the session cookie `issuer_console_session` (HttpOnly, SameSite=Strict, Secure under https, Path=/admin/v1). ' +
    'The admin API then accepts the cookie instead of the bearer token; writes with it need `X-CSRF-Token`. ' +
    'A session ends after 12 hours unused or 24 hours after sign-in.',
  body: named('CreateConsoleSessionRequest', Strict({ admin_token: Text(512) })),
  response: {
    201: json('Signed in; the Set-Cookie header carries the session cookie', SessionAnswer),
    ...errors(400, 401, 413, 415, 429, 500),
  },
};

export const getSessionSchema = {
  ...session,
  security: ConsoleAuth,
  operationId: 'getConsoleSession',
  summary: 'The current console session and its CSRF token',
  description: 'What a reloaded console page asks to learn its CSRF token again.',
  response: { 200: json('The live session', SessionAnswer), ...errors(401, 429, 500) },
};

export const deleteSessionSchema = {
  ...session,
  security: ConsoleAuth,
  operationId: 'deleteConsoleSession',
  summary: 'Sign out: the session ends on the server and its cookie is cleared',
  description: 'Needs `X-CSRF-Token`. The old cookie then gets 401 everywhere.',
  response: { 204: empty('Signed out'), ...errors(401, 403, 429, 500) },
};
