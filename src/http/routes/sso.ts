import type { FastifyReply, FastifyRequest } from 'fastify';
import { startPersonSession } from '../../domain/admin-sessions.ts';
import { IssuerError } from '../../domain/errors.ts';
import { ProviderUnavailable, SingleSignOn, type SsoRefusal, SSO_ATTEMPT_MS } from '../../domain/sso.ts';
import { personOf } from '../../domain/sso-people.ts';
import { SESSION_COOKIE, sessionCookieOptions } from '../admin-session.ts';
import { recordingRequest, recordingSession, recordRefusedSignIn } from '../audit-trail.ts';
import type { App, AppContext } from '../context.ts';
import { peopleRouteLimits } from '../people-limits.ts';
import { finishSsoSchema, signInOptionsSchema, startSsoSchema } from '../schemas/sso.ts';

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/**
 * The cookie that ties a provider's answer to the browser that went there: it holds the attempt's
 * state, which the callback must carry too. Without it, someone could send a victim's browser their
 * own callback URL and sign the victim in as themselves. SameSite=Lax: the callback is a navigation
 * from the provider's site, on which a Strict cookie would not be sent.
 */
export const SSO_STATE_COOKIE = 'issuer_sso_state';
export const CALLBACK_PATH = '/admin/v1/sso/callback';

/** Who the audit trail names for a person single sign-on makes. */
const SSO_ACTOR = { user_id: null, name: 'single sign-on', via: 'session' as const };

const PROVIDER_DOWN = 'the single sign-on provider does not answer; retry later';
const NOT_CONFIGURED = 'single sign-on is not configured on this issuer (OIDC_ISSUER_URL)';

/** The query string exactly as the provider sent it (every parameter, `iss` included). */
const rawQuery = (url: string): URLSearchParams => new URLSearchParams(url.slice(url.indexOf('?') + 1 || url.length));

/**
 * Single sign-on with OpenID Connect, and the sign-in page's question of how one may sign in. Outside
 * the admin scope: none of them takes a credential. Counted per client like the password sign-in, and
 * a refused callback counts as a failed authentication.
 */
export function ssoRoutes(app: App, ctx: AppContext): void {
  const settings = ctx.config.oidc;
  const sso = settings
    ? new SingleSignOn(
        settings,
        `${ctx.config.baseUrl}${CALLBACK_PATH}`,
        ctx.store,
        ctx.keyEncryptionKey,
        ctx.clock,
        (error, message) =>
          app.log.warn(
            { sso_error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) },
            message,
          ),
      )
    : null;
  const limited = { onRequest: ctx.limits.adminPerToken };
  const signInLimits = { onRequest: peopleRouteLimits(ctx, 'session') };
  const countFailure = ctx.limits.authFailuresPerIp as Hook;
  const stateCookie = (request: FastifyRequest) => ({
    ...sessionCookieOptions(ctx.config, request),
    path: CALLBACK_PATH,
    sameSite: 'lax' as const,
  });

  app.get('/admin/v1/session/options', { schema: signInOptionsSchema, ...limited }, async () => ({
    password: true,
    sso: sso !== null,
  }));

  app.get('/admin/v1/sso/start', { schema: startSsoSchema, ...signInLimits }, async (request, reply) => {
    if (sso === null) throw new IssuerError('NOT_FOUND', NOT_CONFIGURED);
    let started;
    try {
      started = await sso.start();
    } catch (error) {
      if (!(error instanceof ProviderUnavailable)) throw error;
      const seconds = error.retryAfterSeconds;
      return reply
        .status(503)
        .header('retry-after', String(seconds))
        .send({ error: { code: 'UNAVAILABLE', message: PROVIDER_DOWN, details: { retry_after_seconds: seconds } } });
    }
    reply.setCookie(SSO_STATE_COOKIE, started.state, { ...stateCookie(request), maxAge: SSO_ATTEMPT_MS / 1000 });
    return reply.redirect(started.location, 302);
  });

  app.get(CALLBACK_PATH, { schema: finishSsoSchema, ...signInLimits }, async (request, reply) => {
    if (sso === null) throw new IssuerError('NOT_FOUND', NOT_CONFIGURED);
    const refuse = async (reason: SsoRefusal, email: string | null = null) => {
      request.log.info({ sso_refusal: reason }, 'single sign-on refused');
      // The provider not answering is nobody's guess at a credential.
      if (reason !== 'unavailable') {
        const details = { with: 'sso', reason };
        await recordRefusedSignIn(ctx.store, request, ctx.clock, { via: 'session', typed: email, details });
        await countFailure(request, reply);
      }
      return reply.redirect(`/console/#sso_error=${reason}`, 302);
    };
    const browserState = request.cookies[SSO_STATE_COOKIE] ?? null;
    reply.clearCookie(SSO_STATE_COOKIE, stateCookie(request));
    const identity = await sso.finish(rawQuery(request.url), browserState);
    if (typeof identity === 'string') return refuse(identity);
    // A person made at their first sign-in (OIDC_DEFAULT_ROLE) is recorded as single sign-on's doing.
    const newcomer = { actor: SSO_ACTOR, action: 'user.create', target: null, details: { with: 'sso' } };
    const person = await recordingRequest(request, ctx.clock, newcomer, () =>
      personOf(ctx.store, ctx.clock, identity, settings!.defaultRole),
    );
    if (typeof person === 'string') return refuse(person, identity.email);
    const signIn = { user: person, action: 'session.sign_in', details: { with: 'sso' } };
    const { sessionId, record } = await recordingSession(request, ctx.clock, signIn, () =>
      startPersonSession(ctx.store, ctx.clock, person),
    );
    request.log.info({ user_id: person.user_id }, 'console session started with single sign-on');
    reply.setCookie(SESSION_COOKIE, sessionId, sessionCookieOptions(ctx.config, request, new Date(record.expires_at)));
    return reply.redirect('/console/', 302);
  });
}
