import type { FastifyReply, FastifyRequest } from 'fastify';
import { acceptInvitation, invitationRefused } from '../../domain/people.ts';
import { recordingRequest } from '../audit-trail.ts';
import type { App, AppContext } from '../context.ts';
import { peopleRouteLimits } from '../people-limits.ts';
import { acceptInvitationSchema } from '../schemas/invitations.ts';

/** The entry of an accepted invitation before its transaction names the person. */
const INVITATION_ENTRY = {
  actor: { user_id: null, name: 'invitation link', via: 'invitation' as const },
  action: 'user.accept_invitation',
  target: null,
};

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/**
 * Accepting an invitation: public (the invitation's token is the credential), outside the admin scope,
 * limited like the sign-in (see people-limits.ts), and each refused token counts as a failed
 * authentication.
 */
export function invitationRoutes(app: App, ctx: AppContext): void {
  const countFailure = ctx.limits.authFailuresPerIp as Hook;

  app.post(
    '/admin/v1/invitations/accept',
    { schema: acceptInvitationSchema, onRequest: peopleRouteLimits(ctx, 'token') },
    async (request, reply) => {
      const { invite_token, password } = request.body;
      // Recorded in the transaction that sets the password, as the person it finds (see noteAuditActor).
      const user = await recordingRequest(request, ctx.clock, INVITATION_ENTRY, () =>
        acceptInvitation(ctx.store, ctx.clock, ctx.hashing.derive, invite_token, password),
      );
      if (user === 'refused') {
        await countFailure(request, reply);
        throw invitationRefused();
      }
      request.log.info({ user_id: user.user_id }, 'invitation accepted: password set');
      return { user_id: user.user_id, email: user.email };
    },
  );
}
