import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fastifyStatic from '@fastify/static';
import { IssuerError } from '../domain/errors.ts';
import { projectPath } from '../paths.ts';
import type { App } from './context.ts';
/** The web scanner as built by `npm run build` (during `npm ci`): see scripts/build.js. */
const SCAN_DIR = projectPath('dist', 'scan');

/** The QR decoder for browsers without BarcodeDetector, from its npm package (scripts/build.js names it too). */
const DECODER_WASM = 'zxing_reader.wasm';
const require = createRequire(import.meta.url);
// The package exports no package.json: from its reader module (dist/cjs/reader/) to dist/reader/.
const decoderDir = (): string => join(dirname(require.resolve('zxing-wasm/reader')), '..', '..', 'reader');

/**
 * The gate app may run only its own scripts (and compile the QR decoder's WebAssembly), show its own
 * images and the camera's stream, talk to the issuer that serves it, and never be framed.
 */
export const SCAN_CSP = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob: mediastream:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "worker-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Files asked for again on every load, so that a new build (and its service worker) is seen at once. */
const REVALIDATED = new Set(['', 'index.html', 'sw.js', 'manifest.webmanifest']);

/** The web scanner's files at /scan/, and the QR decoder's WASM file beside them. */
export async function registerScanner(app: App): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onSend', async (request, reply) => {
      reply.header('content-security-policy', SCAN_CSP);
      // The camera for this page only; nothing else it does not use.
      reply.header('permissions-policy', 'camera=(self), microphone=(), geolocation=()');
      const file = request.url.split('?')[0]!.slice('/scan/'.length);
      if (reply.statusCode === 200 && REVALIDATED.has(file)) reply.header('cache-control', 'no-cache');
    });
    const hidden = { schema: { hide: true } };
    scope.get('/scan', hidden, async (_request, reply) => reply.redirect('/scan/', 301));
    scope.get(`/scan/${DECODER_WASM}`, hidden, async (_request, reply) =>
      reply.type('application/wasm').sendFile(DECODER_WASM, decoderDir()),
    );
    if (!existsSync(SCAN_DIR)) {
      // Not built (a checkout without `npm ci` or `npm run build`): a clear answer, not a crash.
      scope.get('/scan/*', hidden, async () => {
        throw new IssuerError('NOT_FOUND', 'the web scanner is not built: run "npm run build"');
      });
      return;
    }
    await scope.register(fastifyStatic, {
      root: SCAN_DIR,
      prefix: '/scan/',
      index: 'index.html',
      // The build's bookkeeping is not served.
      allowedPath: (pathName) => !pathName.endsWith('sources.json'),
    });
  });
}
