import { Type } from '@sinclair/typebox';
import { named, StringEnum } from './components.ts';
import { ADMIN_ROUTE as admin, errorAnswer, errors, Id, json, NoBody, Nullable } from './common.ts';
import { JwkProperties } from './discovery.ts';

const Time = Type.String({ description: 'ISO 8601 UTC timestamp' });
const NullableTime = Nullable(Type.String(), { description: 'ISO 8601 UTC timestamp, or null' });

const SigningKeyAnswer = named(
  'SigningKey',
  Type.Object(
    {
      ...JwkProperties,
      status: StringEnum(['active', 'retired', 'removed']),
      created_at: Time,
      retired_at: NullableTime,
      removed_at: NullableTime,
    },
    { description: 'A signing key: its public JWK and its life cycle' },
  ),
);

export const listSigningKeysSchema = {
  ...admin,
  operationId: 'listSigningKeys',
  summary: 'The signing keys (public parts only)',
  response: {
    200: json('Every signing key', named('SigningKeyList', Type.Object({ keys: Type.Array(SigningKeyAnswer) }))),
    ...errors(400, 401, 429, 500),
  },
};

export const rotateSigningKeySchema = {
  ...admin,
  operationId: 'rotateSigningKey',
  summary: 'Make a new active signing key; the previous one keeps verifying until removed',
  body: NoBody,
  response: { 201: json('The new active key', SigningKeyAnswer), ...errors(400, 401, 413, 415, 429, 500) },
};

export const removeSigningKeySchema = {
  ...admin,
  operationId: 'removeSigningKey',
  summary: 'Remove a retired signing key: tickets it signed stop verifying',
  params: Type.Object({ kid: Id() }),
  response: {
    200: json('The removed key', SigningKeyAnswer),
    400: errorAnswer(400, { description: 'INVALID_REQUEST: the active key cannot be removed (rotate first)' }),
    401: errorAnswer(401),
    404: errorAnswer(404, { description: 'NOT_FOUND: no signing key has this kid' }),
    ...errors(429, 500),
  },
};
