import {
  changePerson,
  createPerson,
  deletePerson,
  reinvitePerson,
  requirePerson,
  userView,
} from '../../../domain/people.ts';
import { peopleViews, personView } from '../../../domain/invitation-state.ts';
import { toWire } from '../../../domain/time.ts';
import type { App, AppContext } from '../../context.ts';
import {
  createUserSchema,
  deleteUserSchema,
  getUserSchema,
  inviteUserSchema,
  listUsersSchema,
  updateUserSchema,
} from '../../schemas/users.ts';
import { pageAnswer, pageParams } from './paging.ts';

/** The cursor of the list of people: the last user_id of the previous page. */
const USER_CURSOR = /^usr_[0-9A-HJKMNP-TV-Z]{26}$/;

/** People (the contract's "People, roles and the audit trail"): who they are, their role, their invitations. */
export function adminUserRoutes(app: App, ctx: AppContext): void {
  const baseUrl = ctx.config.baseUrl;

  app.post('/admin/v1/users', { schema: createUserSchema }, async (request, reply) => {
    const { user, inviteUrl } = await createPerson(ctx.store, ctx.clock, baseUrl, request.body);
    request.log.info({ user_id: user.user_id, role: user.role }, 'person added and invited');
    // Made with its invitation: pending by construction.
    return reply.status(201).send({ ...userView(user), invitation: 'pending', invite_url: inviteUrl });
  });

  app.get('/admin/v1/users', { schema: listUsersSchema }, async (request) => {
    const { limit, cursor } = pageParams(request.query, USER_CURSOR);
    const page = await ctx.store.people.listUsers(limit, cursor);
    return pageAnswer('users', await peopleViews(ctx.store, ctx.clock, page.items), page.next_cursor);
  });

  app.get('/admin/v1/users/:user_id', { schema: getUserSchema }, async (request) =>
    personView(ctx.store, ctx.clock, await requirePerson(ctx.store, request.params.user_id)),
  );

  app.patch('/admin/v1/users/:user_id', { schema: updateUserSchema }, async (request) => {
    const user = await changePerson(ctx.store, ctx.clock, request.params.user_id, request.body);
    request.log.info({ user_id: user.user_id, role: user.role, disabled: user.disabled_at !== null }, 'person changed');
    return personView(ctx.store, ctx.clock, user);
  });

  app.delete('/admin/v1/users/:user_id', { schema: deleteUserSchema }, async (request, reply) => {
    await deletePerson(ctx.store, request.params.user_id);
    request.log.info({ user_id: request.params.user_id }, 'person removed');
    return reply.status(204).send(null);
  });

  app.post('/admin/v1/users/:user_id/invite', { schema: inviteUserSchema }, async (request, reply) => {
    const { inviteUrl, expiresAt } = await reinvitePerson(ctx.store, ctx.clock, baseUrl, request.params.user_id);
    request.log.info({ user_id: request.params.user_id }, 'person invited again');
    return reply
      .status(201)
      .send({ user_id: request.params.user_id, invite_url: inviteUrl, expires_at: toWire(expiresAt) });
  });
}
