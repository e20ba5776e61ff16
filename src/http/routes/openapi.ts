import swaggerUi from '@fastify/swagger-ui';
import type { App } from '../context.ts';

/**
 * What the reference page needs, and only on its own routes (the API keeps default-src 'none'):
 * its own scripts and styles (Swagger UI sets inline styles), its own images and data: icons, and
 * requests to this issuer for the document and "Try it out". Nothing from elsewhere: venues are often offline.
 */
export function docsCsp(baseUrl: string): string {
  const origin = new URL(baseUrl).origin;
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self' ${origin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** GET /openapi.json (the document from the route schemas) and the reference page at /docs. */
export async function openApiRoutes(app: App, baseUrl: string): Promise<void> {
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  const csp = docsCsp(baseUrl);
  await app.register(async (docs) => {
    docs.addHook('onSend', async (_request, reply) => {
      reply.header('content-security-policy', csp);
    });
    await docs.register(swaggerUi, {
      routePrefix: '/docs',
      // No badge from validator.swagger.io: the page talks to nothing but this issuer.
      validatorUrl: false,
      // BaseLayout: no top bar offering to load other documents.
      uiConfig: { layout: 'BaseLayout', deepLinking: true, defaultModelsExpandDepth: 0, tryItOutEnabled: false },
      theme: { title: 'Ticket issuer API reference' },
      // "Try it out" calls the issuer at the address this page was opened at (a laptop's LAN address,
      // localhost, a name), not only at BASE_URL. The server listed first is relative ("/"): the
      // browser resolves it against the page's own origin, scheme included, so it holds behind a TLS
      // proxy too and stays within the CSP's connect-src 'self', which an origin rebuilt from the
      // request's Host and protocol would not (a proxy that does not forward them turns https into
      // http). The document at /openapi.json keeps BASE_URL alone, for clients elsewhere.
      transformSpecification: (document: Record<string, unknown>) => ({
        ...document,
        servers: [
          { url: '/', description: 'this issuer, at the address this page was opened at' },
          ...((document.servers as { url: string }[] | undefined) ?? []),
        ],
      }),
    });
  });
}
