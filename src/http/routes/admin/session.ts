import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  csrfTokenOf,
  endAdminSession,
  type LiveSession,
  sessionEndsAt,
  type StartedSession,
  startAdminSession,
  startPersonSession,
} from '../../../domain/admin-sessions.ts';
import { matchesHash } from '../../../domain/credentials.ts';
import { IssuerError, invalidRequest } from '../../../domain/errors.ts';
import { checkPassword, signInRefused } from '../../../domain/sign-in.ts';
import { toWire } from '../../../domain/time.ts';
import type { UserRecord } from '../../../store/people-store.ts';
import { recordingSession, recordRefusedSignIn } from '../../audit-trail.ts';
import { authenticateAdminSession, SESSION_COOKIE, sessionCookieOptions, sessionIdOf } from '../../admin-session.ts';
import type { App, AppContext } from '../../context.ts';
import { peopleRouteLimits, recordHeldEmail } from '../../people-limits.ts';
import { createSessionSchema, deleteSessionSchema, getSessionSchema } from '../../schemas/session.ts';

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** The field to name when a sign-in sends neither the admin token alone nor an address with a password. */
function fieldAmiss(body: { admin_token?: string; email?: string }): string {
  if (body.admin_token !== undefined) return 'admin_token';
  return body.email === undefined ? 'email' : 'password';
}

/**
 * A session's answer: its CSRF token, when it ends, and who is signed in (`user` null and `role`
 * "owner" for the admin token), so the console offers only what the role may do.
 */
const sessionAnswer = ({ record, user }: LiveSession, sessionId: string) => ({
  csrf_token: csrfTokenOf(sessionId),
  expires_at: toWire(sessionEndsAt(record)),
  role: user?.role ?? 'owner',
  user:
    user === null
      ? null
      : { user_id: user.user_id, email: user.email, name: user.name, role: user.role, events: user.events },
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

  /** Signs in with the admin token: the built-in owner. */
  const withAdminToken = async (request: FastifyRequest, reply: FastifyReply, adminToken: string) => {
    const adminTokenHash = await ctx.adminTokenHash();
    if (!matchesHash(adminToken, adminTokenHash)) {
      await recordRefusedSignIn(ctx.store, request, ctx.clock, { via: 'admin_token', typed: null, details: {} });
      await countFailure(request, reply);
      throw new IssuerError('UNAUTHORIZED', 'this is not the admin token');
    }
    const started = await recordingSession(request, ctx.clock, { user: null, action: 'session.sign_in' }, () =>
      startAdminSession(ctx.store, ctx.clock, adminTokenHash),
    );
    return { started, user: null };
  };

  /** Signs in a person: one 401 for a wrong password, an unknown address, a hold and a disabled person. */
  const withPassword = async (request: FastifyRequest, reply: FastifyReply, email: string, password: string) => {
    const result = await checkPassword(ctx.store, ctx.clock, ctx.hashing.derive, email, password);
    if (!result.ok) {
      request.log.info({ sign_in_refusal: result.why }, 'sign-in refused');
      if (result.why === 'held') {
        // Refused before any hash, and not counted again: summarized in the audit trail.
        await recordHeldEmail(ctx, request, result.email, 'session');
        throw signInRefused();
      }
      const refusal = { via: 'session' as const, typed: result.email, details: { reason: result.why } };
      await recordRefusedSignIn(ctx.store, request, ctx.clock, refusal);
      await countFailure(request, reply);
      throw signInRefused();
    }
    const started = await recordingSession(request, ctx.clock, { user: result.user, action: 'session.sign_in' }, () =>
      startPersonSession(ctx.store, ctx.clock, result.user),
    );
    return { started, user: result.user };
  };

  const signInLimits = { onRequest: peopleRouteLimits(ctx, 'session') };
  app.post('/admin/v1/session', { schema: createSessionSchema, ...signInLimits }, async (request, reply) => {
    const { admin_token, email, password } = request.body;
    let signedIn: { started: StartedSession; user: UserRecord | null };
    if (admin_token !== undefined && email === undefined && password === undefined) {
      signedIn = await withAdminToken(request, reply, admin_token);
    } else if (admin_token === undefined && email !== undefined && password !== undefined) {
      signedIn = await withPassword(request, reply, email, password);
    } else {
      const problem = 'send either admin_token, or email and password';
      throw invalidRequest(problem, [{ field: fieldAmiss(request.body), problem }]);
    }
    const { sessionId, record } = signedIn.started;
    request.log.info(signedIn.user ? { user_id: signedIn.user.user_id } : {}, 'console session started');
    const options = sessionCookieOptions(ctx.config, request, new Date(record.expires_at));
    reply.setCookie(SESSION_COOKIE, sessionId, options);
    return reply.status(201).send(sessionAnswer({ record, user: signedIn.user }, sessionId));
  });

  app.get('/admin/v1/session', { schema: getSessionSchema, ...limited }, async (request, reply) => {
    const live = await sessionOf(request, reply);
    return sessionAnswer(live, sessionIdOf(request)!);
  });

  app.delete('/admin/v1/session', { schema: deleteSessionSchema, ...limited }, async (request, reply) => {
    const live = await sessionOf(request, reply);
    await recordingSession(request, ctx.clock, { user: live.user, action: 'session.sign_out' }, () =>
      endAdminSession(ctx.store, sessionIdOf(request)!),
    );
    request.log.info('console session ended');
    reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(ctx.config, request));
    return reply.status(204).send(null);
  });
}
