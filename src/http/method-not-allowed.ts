import Router, { type HTTPMethod } from 'find-my-way';
import type { FastifyInstance } from 'fastify';

/**
 * Knows which methods each path answers, so that a known path asked with another method gets 405
 * with an `Allow` header instead of a plain 404. Fastify's router does not say why it found nothing;
 * a second router (the same library Fastify uses) fed from `onRoute` does.
 */
export function routeMethods(app: FastifyInstance): (url: string) => string[] {
  const router = Router();
  const methods = new Set<string>();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD' || router.hasRoute(method as HTTPMethod, route.url)) continue;
      router.on(method as HTTPMethod, route.url, () => {});
      methods.add(method);
    }
  });
  return (url) => {
    const path = url.split('?')[0] ?? '/';
    const allowed = [...methods].filter((method) => router.find(method as HTTPMethod, path) !== null);
    // Fastify answers HEAD wherever it answers GET.
    if (allowed.includes('GET')) allowed.push('HEAD');
    return allowed.sort();
  };
}
