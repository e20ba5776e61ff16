import { Type } from '@sinclair/typebox';
import { named } from './components.ts';
import { empty, errors, json, NoAuth, Nullable, Strict, Text } from './common.ts';
import { PASSWORD_MAX_LENGTH } from '../../domain/passwords.ts';
import { ROLES } from '../../domain/roles.ts';

const PASSWORD_TEXT = `must be text of 1 to ${PASSWORD_MAX_LENGTH} characters`;

const ConsoleAuth = [{ ConsoleSession: [] as string[] }];
const session = { tags: ['console'] };

const SessionUser = named(
  'ConsoleSessionUser',
  Type.Object(
    {
      user_id: Type.String({ description: '`usr_…`' }),
      email: Type.String(),
      name: Type.String(),
      role: Type.String({ enum: [...ROLES] }),
      events: Nullable(Type.Array(Type.String()), {
        description: 'the events a supervisor or viewer may act on; null: every event',
      }),
    },
    { description: 'The person signed in' },
  ),
);

const SessionAnswer = named(
  'ConsoleSessionInfo',
  Type.Object(
    {
      csrf_token: Type.String({ description: 'send it as X-CSRF-Token with every cookie-authenticated write' }),
      expires_at: Type.String({ description: 'when the session ends if unused from now on (ISO 8601 UTC)' }),
      role: Type.String({
        enum: [...ROLES],
        description: "the role signed in: the person's, or `owner` for the admin token",
      }),
      user: Nullable(SessionUser, { description: 'the person signed in; null for the admin token' }),
    },
    { description: 'A console session: its CSRF token, when it ends, and who is signed in' },
  ),
);

export const createSessionSchema = {
  ...session,
  security: NoAuth,
  operationId: 'createConsoleSession',
  summary: 'Sign in to the console with an email address and password, or the admin token',
  description:
    'Send `{email, password}` (a person) or `{admin_token}` (the built-in owner). ' +
    'Sets the session cookie `issuer_console_session` (HttpOnly, SameSite=Strict, Secure under https, Path=/admin/v1). ' +
    'The admin API then accepts the cookie instead of the bearer token; writes with it need `X-CSRF-Token`. ' +
    'A session ends after 12 hours unused or 24 hours after sign-in. A wrong password, an unknown address, a ' +
    'disabled person and an address held after 10 failed sign-ins within 15 minutes (for 15 minutes) all get ' +
    'the same 401.',
  body: named(
    'CreateConsoleSessionRequest',
    Strict({
      email: Type.Optional(Text(320)),
      password: Type.Optional(
        Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH, 'x-problem': PASSWORD_TEXT }),
      ),
      admin_token: Type.Optional(Text(512)),
    }),
  ),
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
