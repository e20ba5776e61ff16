import { Type } from '@sinclair/typebox';
import { ROLES } from '../../domain/roles.ts';
import { named, StringEnum } from './components.ts';
import {
  ADMIN_ROUTE as admin,
  empty,
  errorAnswer,
  errors,
  Id,
  Instant,
  json,
  NoBody,
  Nullable,
  PAGE_FIELDS,
  PageQuery,
  Strict,
  Text,
} from './common.ts';

const noPerson = errorAnswer(404, { description: 'NOT_FOUND: no person has this user_id' });

export const Email = Type.String({
  minLength: 3,
  maxLength: 254,
  pattern: '^\\s*[^\\s@]+@[^\\s@]+\\s*$',
  description: 'an email address (compared without case)',
  'x-problem': 'must be an email address of at most 254 characters',
});
const Role = StringEnum(ROLES, {
  description: 'owner (everything, people included), manager (all but people), supervisor or viewer (its events)',
});
const Events = Nullable(Type.Array(Id(), { maxItems: 100 }), {
  description: 'for a supervisor or viewer: the eids of its events (null or absent: every event); null for others',
  'x-problem': 'must be null or a list of event ids',
});

const userFields = {
  user_id: Type.String({ description: '`usr_…`' }),
  email: Type.String(),
  name: Type.String(),
  role: Type.String({ enum: [...ROLES] }),
  events: Nullable(Type.Array(Type.String())),
  disabled: Type.Boolean({ description: 'a disabled person cannot sign in; their tokens are refused' }),
  created_at: Instant,
  invitation: Nullable(StringEnum(['pending', 'accepted'] as const), {
    description:
      'pending: an invitation link is open (unused, not expired; a new link ends it); accepted: a password is set ' +
      'and no link is open; null: neither (the last link expired or was ended unused)',
  }),
};
export const User = named('User', Type.Object(userFields, { description: 'A person of the organization' }));
const InviteUrl = Type.String({
  description: '`<BASE_URL>/console/#invite=<invite_token>`: sets a password once, within 72 hours',
});
const CreatedUser = named(
  'CreatedUser',
  Type.Object(
    { ...userFields, invite_url: InviteUrl },
    { description: 'The new person and their one-time invitation' },
  ),
);

const UserParams = Type.Object({ user_id: Id() });

export const createUserSchema = {
  ...admin,
  operationId: 'createUser',
  summary: 'Add a person and invite them',
  description:
    'Answers a one-time `invite_url` (valid 72 hours) to hand to the person, who opens it and sets a password ' +
    '(`POST /admin/v1/invitations/accept`). 409 CONFLICT when the address has a person already.',
  body: named('UserRequest', Strict({ email: Email, name: Text(200), role: Role, events: Type.Optional(Events) })),
  response: {
    201: json('The person and their invitation link', CreatedUser),
    ...errors(400, 401, 409, 413, 415, 429, 500),
  },
};

export const listUsersSchema = {
  ...admin,
  operationId: 'listUsers',
  summary: 'The people, in user_id order',
  querystring: PageQuery,
  response: {
    200: json('A page of people', named('UserList', Type.Object({ users: Type.Array(User), ...PAGE_FIELDS }))),
    ...errors(400, 401, 429, 500),
  },
};

export const getUserSchema = {
  ...admin,
  operationId: 'getUser',
  summary: 'One person',
  params: UserParams,
  response: { 200: json('The person', User), ...errors(400, 401), 404: noPerson, ...errors(429, 500) },
};

export const updateUserSchema = {
  ...admin,
  operationId: 'updateUser',
  summary: "Change a person's name, role, events, or disable them",
  description:
    'Disabling ends their console sessions and refuses their tokens at once, on every instance; enabling ' +
    'lets them sign in again. A role for every event (owner, manager) clears a list of events.',
  params: UserParams,
  body: named(
    'UserChange',
    Strict({
      name: Type.Optional(Text(200)),
      role: Type.Optional(Role),
      events: Type.Optional(Events),
      disabled: Type.Optional(Type.Boolean()),
    }),
  ),
  response: {
    200: json('The person as they are now', User),
    ...errors(400, 401),
    404: noPerson,
    ...errors(413, 415, 429, 500),
  },
};

export const deleteUserSchema = {
  ...admin,
  operationId: 'deleteUser',
  summary: 'Remove a person, their sessions, invitations and tokens',
  params: UserParams,
  response: { 204: empty('Removed'), ...errors(400, 401), 404: noPerson, ...errors(429, 500) },
};

export const inviteUserSchema = {
  ...admin,
  operationId: 'inviteUser',
  summary: 'A new invitation link for a person (the earlier ones stop working)',
  description: 'Also how a person who forgot their password gets to set a new one.',
  params: UserParams,
  body: NoBody,
  response: {
    201: json(
      'The new invitation link',
      named(
        'Invitation',
        Type.Object(
          { user_id: Type.String(), invite_url: InviteUrl, expires_at: Instant },
          { description: 'An invitation' },
        ),
      ),
    ),
    ...errors(400, 401),
    404: noPerson,
    ...errors(413, 415, 429, 500),
  },
};
