import type { App } from '../context.ts';

/** GET /openapi.json: the OpenAPI document generated from the route schemas. */
export function openApiRoutes(app: App): void {
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
