import type { FastifyReply, FastifyRequest } from 'fastify';
import { csrfTokenOf, endAdminSession, sessionEndsAt, startAdminSession } from '../../../domain/admin-sessions.ts';
import { matchesHash } from '../../../domain/credentials.ts';
import { IssuerError } from '../../../domain/errors.ts';
import { toWire } from '../../../domain/time.ts';
import type { AdminSessionRecord } from '../../../store/store.ts';
import { authenticateAdminSession, SESSION_COOKIE, sessionCookieOptions, sessionIdOf } from '../../admin-session.ts';
import type { App, AppContext } from '../../context.ts';
import { createSessionSchema, deleteSessionSchema, getSessionSchema } from '../../schemas/session.ts';

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

const sessionAnswer = (record: AdminSessionRecord, sessionId: string) => ({
  csrf_token: csrfTokenOf(sessionId),
  expires_at: toWire(sessionEndsAt(record)),
});

/** The console's sign-in, session check and sign-out; outside the admin scope, which wants a credential first. */
export function adminSessionRoutes(app: App, ctx: AppContext): void {
  const countFailure = ctx.limits.authFailuresPerIp as Hook;
  const limited = { onRequest: ctx.limits.adminPerToken };

  /** The request's live session; a presented but unknown cookie counts as a failed authentication. */
  const sessionOf = async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      return await authenticateAdminSession(request, ctx.store, ctx.clock, ctx.adminTokenHash);
    } catch (error) {
      if (error instanceof IssuerError && error.code === 'UNAUTHORIZED' && sessionIdOf(request) !== null) {
        await countFailure(request, reply);
      }
      throw error;
    }
  };

  app.post('/admin/v1/session', { schema: createSessionSchema, ...limited }, async (request, reply) => {
    const adminTokenHash = await ctx.adminTokenHash();
    if (!matchesHash(request.body.admin_token, adminTokenHash)) {
      await countFailure(request, reply);
      throw new IssuerError('UNAUTHORIZED', 'this is not the admin token');
    }
    const { sessionId, record } = await startAdminSession(ctx.store, ctx.clock, adminTokenHash);
    request.log.info('console session started');
    const options = sessionCookieOptions(ctx.config, request, new Date(record.expires_at));
    reply.setCookie(SESSION_COOKIE, sessionId, options);
    return reply.status(201).send(sessionAnswer(record, sessionId));
  });

  app.get('/admin/v1/session', { schema: getSessionSchema, ...limited }, async (request, reply) => {
    const record = await sessionOf(request, reply);
    return sessionAnswer(record, sessionIdOf(request)!);
  });

  app.delete('/admin/v1/session', { schema: deleteSessionSchema, ...limited }, async (request, reply) => {
    await sessionOf(request, reply);
    await endAdminSession(ctx.store, sessionIdOf(request)!);
    request.log.info('console session ended');
    reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(ctx.config, request));
    return reply.status(204).send(null);
  });
}
