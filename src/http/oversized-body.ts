import type { FastifyReply, FastifyRequest } from 'fastify';

/** The largest body a scan upload (check-in, check-out) may have: CONTRACT.md, "Faults". */
export const SCAN_BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Lets a client that is still sending a body over the limit read its 413.
 *
 * Fastify answers such a body with `Connection: close` before reading it, and Node then closes the
 * socket while the client is still writing: the client's kernel sees a reset, and a client such as
 * Node's `fetch` reports `EPIPE` instead of the answer. Here the rest of the body is read and
 * discarded instead, on a connection kept open, so the client finishes sending and reads the
 * envelope. The discarding is bounded: at most the server's own body limit (what any route would
 * accept anyway), and no longer than REQUEST_TIMEOUT_S (Node's request timeout still applies);
 * past the bound the connection is cut.
 */
export function discardRestOfBody(request: FastifyRequest, reply: FastifyReply): void {
  const raw = request.raw;
  // The whole body has arrived: closing after the answer cuts nobody off.
  if (raw.complete) return;
  const bound = request.server.initialConfig.bodyLimit ?? 1024 * 1024;
  let discarded = 0;
  reply.removeHeader('connection');
  raw.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > bound) raw.socket.destroy();
  });
  raw.resume();
}
