import type { FastifyReply, FastifyRequest } from 'fastify';
import { IssuerError } from '../../domain/errors.ts';
import { acceptInvitation } from '../../domain/people.ts';
import type { App, AppContext } from '../context.ts';
import { acceptInvitationSchema } from '../schemas/invitations.ts';

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/**
 * Accepting an invitation: public (the invitation's token is the credential), outside the admin scope,
 * limited like the sign-in: per client IP, and each refused token counts as a failed authentication.
 */
export function invitationRoutes(app: App, ctx: AppContext): void {
  const countFailure = ctx.limits.authFailuresPerIp as Hook;

  app.post(
    '/admin/v1/invitations/accept',
    { schema: acceptInvitationSchema, onRequest: ctx.limits.adminPerToken },
    async (request, reply) => {
      try {
        const user = await acceptInvitation(ctx.store, ctx.clock, request.body.invite_token, request.body.password);
        request.log.info({ user_id: user.user_id }, 'invitation accepted: password set');
        return { user_id: user.user_id, email: user.email };
      } catch (error) {
        const refusedToken =
          error instanceof IssuerError && JSON.stringify(error.details).includes('"field":"invite_token"');
        if (refusedToken) await countFailure(request, reply);
        throw error;
      }
    },
  );
}
