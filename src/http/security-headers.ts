import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';
import type { App } from './context.ts';

/**
 * The security headers helmet chooses for these options, read once at start. They are the same for
 * every answer, so computing them per request (as the Fastify plugin does) only costs time on the
 * hot path; routes that need another CSP (the console, the API reference) set it in their own hooks.
 */
export function securityHeaders(options: Parameters<typeof helmet>[0]): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string | number) => (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => delete headers[name.toLowerCase()],
  };
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, () => undefined);
  return headers;
}

/** The API's security headers: a strict CSP, no framing at all, no sniffing, HSTS… */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = securityHeaders({
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  crossOriginResourcePolicy: { policy: 'cross-origin' },
  // DENY, to agree with `frame-ancestors 'none'` (helmet's default, SAMEORIGIN, says less).
  xFrameOptions: { action: 'deny' },
});

/**
 * Sets the API's security headers on every answer that goes through the routes' hooks. Answers made
 * before any hook runs (a URL the router refuses, a request Node's parser refuses) set them
 * themselves from API_SECURITY_HEADERS.
 */
export function addSecurityHeaders(app: App): void {
  const entries = Object.entries(API_SECURITY_HEADERS);
  app.addHook('onRequest', (_request, reply, done) => {
    for (const [name, value] of entries) reply.header(name, value);
    done();
  });
}
