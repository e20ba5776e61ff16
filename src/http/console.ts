import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import cookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import { IssuerError } from '../domain/errors.ts';
import { projectPath } from '../paths.ts';
import type { App, AppContext } from './context.ts';
import { adminSessionRoutes } from './routes/admin/session.ts';

/** The console's own files: plain ES modules and CSS, served as they are (no build step). */
const CONSOLE_DIR = projectPath('console');

const require = createRequire(import.meta.url);
const packageDir = (name: string): string => dirname(require.resolve(`${name}/package.json`));

/** The only third-party files the console loads, each from its npm package: nothing from a CDN. */
const VENDOR_FILES: Record<string, string> = {
  'uPlot.esm.js': join(packageDir('uplot'), 'dist'),
  'uPlot.min.css': join(packageDir('uplot'), 'dist'),
  'papaparse.min.js': packageDir('papaparse'),
};

/**
 * The console's pages may run only the issuer's own scripts and styles, show images from itself or
 * data: URLs (QR codes), talk to itself, and never be framed.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The organizer console: cookie parsing and the session routes for the admin API, and the console's
 * files at /console/. Registered before the admin routes, so that their authentication sees cookies.
 */
export async function registerConsole(app: App, ctx: AppContext): Promise<void> {
  await app.register(cookie);
  adminSessionRoutes(app, ctx);
  await app.register(async (scope) => {
    // Replaces the API's CSP (default-src 'none'), which would block the console's own files.
    scope.addHook('onSend', async (_request, reply) => {
      reply.header('content-security-policy', CONSOLE_CSP);
    });
    await scope.register(fastifyStatic, { root: CONSOLE_DIR, prefix: '/console/', index: 'index.html' });
    // The console's files are not part of the API: the OpenAPI document leaves them out.
    const hidden = { schema: { hide: true } };
    scope.get('/console', hidden, async (_request, reply) => reply.redirect('/console/', 301));
    // The issuer's own address leads an organizer to the console (the API's clients never ask for it).
    scope.get('/', hidden, async (_request, reply) => reply.redirect('/console/', 302));
    scope.get<{ Params: { file: string } }>('/console/vendor/:file', hidden, async (request, reply) => {
      // Own keys only: `__proto__`, `constructor` or `toString` must not find Object.prototype's members.
      const dir = Object.hasOwn(VENDOR_FILES, request.params.file) ? VENDOR_FILES[request.params.file] : undefined;
      if (dir === undefined) throw new IssuerError('NOT_FOUND', `no console file ${request.url}`);
      return reply.sendFile(request.params.file, dir);
    });
  });
}
