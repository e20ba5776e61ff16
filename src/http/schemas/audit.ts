import { Type } from '@sinclair/typebox';
import { named } from './components.ts';
import { ADMIN_ROUTE as admin, errors, Id, Instant, json, Nullable, PAGE_FIELDS, PageQuery } from './common.ts';

const Actor = Type.Object(
  {
    user_id: Nullable(Type.String(), { description: 'the person; null for the admin token' }),
    name: Type.String({ description: 'the person’s name as it was then, or "admin token"' }),
    via: Type.Union(
      [Type.Literal('session'), Type.Literal('token'), Type.Literal('admin_token'), Type.Literal('invitation')],
      {
        description:
          'how they signed the request: a console session, a personal API token, the admin token, or an ' +
          'invitation link (accepting it)',
      },
    ),
  },
  { description: 'Who did it' },
);

const AuditEntry = named(
  'AuditEntry',
  Type.Object({
    at: Instant,
    actor: Actor,
    action: Type.String({
      description: '`<resource>.<verb>`, as the role table names it: `ticket.revoke`, `session.sign_in`…',
    }),
    target: Nullable(Type.String(), {
      description: 'what it was done to: the id the path named, or what was created (an email for a failed sign-in)',
    }),
    eid: Nullable(Type.String(), { description: 'the event it touched; null for what belongs to no event' }),
    ip: Nullable(Type.String(), { description: 'the client address (as TRUST_PROXY resolves it)' }),
    details: Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'the request’s fields that are not secrets (a bulk issue: `count`, and `created`)',
      },
    ),
  }),
);

export const listAuditSchema = {
  ...admin,
  operationId: 'listAudit',
  summary: 'The audit trail, newest first',
  description:
    'Every admin write, sign-in, failed sign-in and sign-out, each recorded in the transaction of its change ' +
    '(a write that changed nothing, or failed, has no entry). No route changes or deletes an entry, and no ' +
    'entry holds a secret.',
  querystring: Type.Object({
    eid: Type.Optional(Id()),
    user_id: Type.Optional(Id()),
    ...PageQuery.properties,
  }),
  response: {
    200: json(
      'A page of entries',
      named(
        'AuditPage',
        Type.Object({ entries: Type.Array(AuditEntry, { description: 'newest first' }), ...PAGE_FIELDS }),
      ),
    ),
    ...errors(400, 401, 429, 500),
  },
};
