import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Via } from '../domain/roles.ts';
import { recordRefusedSignIn } from './audit-trail.ts';
import type { AppContext } from './context.ts';

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * The limits of the people routes (sign-in, invitations, single sign-on), checked when the request
 * arrives, before its body is read and long before any password is hashed: the client address's
 * allowance (RATE_LIMIT_SIGNIN_PER_IP), whatever credential the request presents (a random Bearer
 * gets no allowance of its own), then its failure budget (RATE_LIMIT_AUTH_FAILURES_PER_IP): an
 * address that spent it is refused, right password included, until its window ends. Those refusals
 * go to the audit trail summarized (`RefusalDigest`), as `session.sign_in_failed` with
 * `details.reason` "address_held" and `details.count`.
 */
export function peopleRouteLimits(ctx: AppContext, via: Via): Hook[] {
  const budget: Hook = async (request, reply) => {
    try {
      await (ctx.limits.authBudgetPerIp as Hook)(request, reply);
    } catch (error) {
      await ctx.refusals.refused(`address:${request.ip}`, (count) =>
        recordRefusedSignIn(ctx.store, request, ctx.clock, {
          via,
          typed: null,
          details: { reason: 'address_held', count },
        }),
      );
      throw error;
    }
  };
  return [ctx.limits.signInPerIp as Hook, budget];
}

/**
 * Records a refused attempt of an email on hold (see sign-in.ts): summarized like an address's, as
 * `details.reason` "held" with `details.count`.
 */
export function recordHeldEmail(ctx: AppContext, request: FastifyRequest, email: string, via: Via): Promise<void> {
  return ctx.refusals.refused(`email:${email}`, (count) =>
    recordRefusedSignIn(ctx.store, request, ctx.clock, { via, typed: email, details: { reason: 'held', count } }),
  );
}
