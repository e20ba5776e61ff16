import { Type } from '@sinclair/typebox';
import { named } from './components.ts';
import {
  ADMIN_ROUTE as admin,
  empty,
  errorAnswer,
  errors,
  Id,
  Instant,
  InstantIn,
  json,
  Nullable,
  NullableInstant,
  PAGE_FIELDS,
  PageQuery,
  Strict,
  Text,
} from './common.ts';

const noToken = errorAnswer(404, {
  description: 'NOT_FOUND: no personal API token of yours (or, for an owner, of anyone) has this token_id',
});

const tokenFields = {
  token_id: Type.String({ description: '`tok_…`, safe to log' }),
  user_id: Type.String({ description: 'the person the token acts as' }),
  name: Type.String(),
  created_at: Instant,
  expires_at: NullableInstant,
  last_used_at: Nullable(Type.String(), { description: 'when it was last used, to the minute; null if never' }),
};
const ApiToken = named(
  'ApiToken',
  Type.Object(tokenFields, { description: 'A personal API token (its secret is shown only on creation)' }),
);
const CreatedApiToken = named(
  'CreatedApiToken',
  Type.Object(
    {
      token_id: tokenFields.token_id,
      token: Type.String({ description: '`iat_` and 43 base64url characters: shown this once, kept only hashed' }),
      name: Type.String(),
      expires_at: NullableInstant,
    },
    { description: 'The new token and its secret' },
  ),
);

export const createApiTokenSchema = {
  ...admin,
  operationId: 'createApiToken',
  summary: 'Make a personal API token acting as you, with your role',
  description:
    'Send it as `Authorization: Bearer iat_…`. It stops at `expires_at` (absent or null: when deleted), when ' +
    'deleted, and while its person is disabled. The admin token is no person: it gets 403 (`details.reason: "role"`).',
  body: named(
    'ApiTokenRequest',
    Strict({
      name: Text(200),
      expires_at: Type.Optional(Nullable(InstantIn, { description: 'when it stops working; null: never' })),
    }),
  ),
  response: { 201: json('The token and its secret', CreatedApiToken), ...errors(400, 401, 413, 415, 429, 500) },
};

export const listApiTokensSchema = {
  ...admin,
  operationId: 'listApiTokens',
  summary: "Personal API tokens: your own; an owner's list holds everyone's",
  querystring: PageQuery,
  response: {
    200: json(
      'A page of tokens, in token_id order',
      named('ApiTokenList', Type.Object({ api_tokens: Type.Array(ApiToken), ...PAGE_FIELDS })),
    ),
    ...errors(400, 401, 429, 500),
  },
};

export const deleteApiTokenSchema = {
  ...admin,
  operationId: 'deleteApiToken',
  summary: 'Delete a personal API token (yours; an owner any): it is refused from the next request',
  params: Type.Object({ token_id: Id() }),
  response: { 204: empty('Deleted'), ...errors(400, 401), 404: noToken, ...errors(429, 500) },
};
