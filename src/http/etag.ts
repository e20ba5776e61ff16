import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The admin API's reads: what the console polls. */
const ADMIN_PREFIX = '/admin/v1/';

/** A strong validator of an answer's exact bytes. */
export function etagOf(payload: string | Buffer): string {
  return `"${createHash('sha256').update(payload).digest('base64url').slice(0, 27)}"`;
}

/** Whether an If-None-Match header names `etag` (or `*`); a weak tag compares by its value. */
export function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

/**
 * Each 200 answer of a GET on the admin API carries an ETag of its bytes; a request whose
 * If-None-Match names it is answered 304 without a body. A console page that polls an event sends the
 * tag of what it holds and gets nothing back while the answer is the same (scanners, conflicts,
 * tokens, arrivals between minutes). The tag is of the answer made for this caller, so two roles
 * that see different answers never share one. Answers stay `no-store`: the console keeps the last
 * answer of each path in its own memory, not in the browser's cache.
 */
export function adminEtags(app: FastifyInstance): void {
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (request.method !== 'GET' || reply.statusCode !== 200 || !request.url.startsWith(ADMIN_PREFIX)) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    const etag = etagOf(payload);
    reply.header('etag', etag);
    if (!matches(request.headers['if-none-match'], etag)) return payload;
    reply.code(304);
    reply.removeHeader('content-length');
    reply.removeHeader('content-type');
    return '';
  });
}
