import { enroll } from '../../domain/enroll.ts';
import type { App, AppContext } from '../context.ts';
import { enrollSchema } from '../schemas/scanners.ts';

/** POST /api/v1/scanners/enroll: the token in the body is the credential. */
export function scannerRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/api/v1/scanners/enroll',
    {
      schema: enrollSchema,
      bodyLimit: 16 * 1024,
      onRequest: ctx.limits.enrollPerIp,
      preHandler: ctx.limits.enrollPerToken,
    },
    async (request) => {
      const answer = await enroll(
        { store: ctx.store, clock: ctx.clock, issuer: { name: ctx.config.issuerName, iss: ctx.config.baseUrl } },
        request.body,
      );
      request.log.info({ api_key_id: answer.api_key_id, eid: answer.scope.eid }, 'scanner enrolled');
      return answer;
    },
  );
}
