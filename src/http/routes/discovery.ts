import { createHash } from 'node:crypto';
import { MAX_OFFLINE_SCAN_AGE_MS } from '../../domain/check-in.ts';
import { PROTOCOL_VERSIONS } from '../../domain/enroll.ts';
import type { App, AppContext } from '../context.ts';
import { discoverySchema } from '../schemas/discovery.ts';

/** Scanners may cache the document this long; a removed key stops being trusted within it. */
const MAX_AGE_SECONDS = 300;

/** GET /.well-known/ticket-issuer.json: public, cacheable, revalidated by ETag. */
export function discoveryRoutes(app: App, ctx: AppContext): void {
  const base = ctx.config.baseUrl;
  app.get('/.well-known/ticket-issuer.json', { schema: discoverySchema }, async (request, reply) => {
    const document = {
      iss: base,
      name: ctx.config.issuerName,
      protocol_versions: [...PROTOCOL_VERSIONS],
      endpoints: {
        enroll: `${base}/api/v1/scanners/enroll`,
        check_in: `${base}/api/v1/tickets/check-in`,
        check_out: `${base}/api/v1/tickets/check-out`,
        ticket_status: `${base}/api/v1/tickets/{tid}/status`,
        changes: `${base}/api/v1/events/{eid}/changes`,
      },
      jwks: { keys: await ctx.signer.publishedKeys() },
      ticket_token: { format: 'jws', alg: 'EdDSA' },
      max_offline_scan_age_seconds: MAX_OFFLINE_SCAN_AGE_MS / 1000,
    };
    const etag = `"${createHash('sha256').update(JSON.stringify(document)).digest('base64url').slice(0, 27)}"`;
    reply.header('cache-control', `public, max-age=${MAX_AGE_SECONDS}`).header('etag', etag);
    const ifNoneMatch = request.headers['if-none-match'];
    if (
      ifNoneMatch !== undefined &&
      ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*')
    ) {
      return reply.status(304).send(undefined as never);
    }
    return document;
  });
}
