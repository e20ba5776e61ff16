import { Type } from '@sinclair/typebox';
import { BearerAuth, errors, Id, Instant, Nullable } from './common.ts';

const S = Type.String();

export const Change = Type.Union(
  [
    Type.Object({ type: Type.Literal('checked_in'), tid: S, at: Instant, scanner_id: S, gate_id: Nullable(S) }),
    Type.Object({ type: Type.Literal('revoked'), tid: S, at: Instant }),
    Type.Object({
      type: Type.Literal('token_superseded'),
      tid: S,
      jti: Nullable(S, { description: 'the superseded token; null for a token issued without jti' }),
      at: Instant,
    }),
  ],
  { description: 'one change of a ticket that offline scanners need to know' },
);

export const changesSchema = {
  summary: "An event's changes (check-ins, revocations, superseded tokens) after a cursor",
  description:
    'Following next_cursor sees every change exactly once, in order, even while check-ins commit on several instances.',
  tags: ['scanner'],
  security: BearerAuth,
  params: Type.Object({ eid: Id() }),
  querystring: Type.Object({
    after: Type.Optional(
      Type.String({ maxLength: 64, pattern: '^[\\x21-\\x7e]*$', description: 'next_cursor of the previous page' }),
    ),
    limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$', description: 'page size, 1 to 1000 (default 500)' })),
  }),
  response: {
    200: Type.Object({ changes: Type.Array(Change), next_cursor: S, has_more: Type.Boolean() }),
    ...errors(400, 401, 403, 429, 500),
  },
};
