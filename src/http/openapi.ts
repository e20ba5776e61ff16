import swagger from '@fastify/swagger';
import type { Config } from '../config.ts';
import type { App } from './context.ts';
import { SECURITY_SCHEMES } from './schemas/common.ts';
import { namedSchemas } from './schemas/components.ts';

const TAGS = [
  { name: 'scanner', description: 'The scanner API v1: enrolment, check-in, ticket status and the changes feed' },
  { name: 'discovery', description: 'The public discovery document: endpoints and signing keys' },
  { name: 'admin', description: "The organizer's admin API: events, tickets, scanners, scan log, signing keys" },
  { name: 'console', description: "The organizer console's session (cookie sign-in for the admin API)" },
  { name: 'operations', description: 'Health, readiness and metrics for the people running the issuer' },
];

const DESCRIPTION = `Issues signed event tickets and verifies them for gate scanners.

Every non-2xx answer is the error envelope \`{"error": {"code", "message", "details"}}\`. Any request may name
its protocol version in the \`Ticket-Protocol-Version\` header; only \`1\` is supported. Unknown fields in bodies
are ignored by the scanner API (newer scanners may send more) and refused by the admin API.`;

type Json = Record<string, unknown>;
type OpenApiDocument = { paths: Record<string, Record<string, Json>>; components: { schemas: Record<string, Json> } };

/**
 * A body whose schema requires no field may be left out altogether (an empty POST reads as `{}`);
 * @fastify/swagger marks every body required.
 */
function markOptionalBodies(document: OpenApiDocument): OpenApiDocument {
  for (const operations of Object.values(document.paths)) {
    for (const operation of Object.values(operations)) {
      const body = operation.requestBody as { required?: boolean; content?: Record<string, { schema?: Json }> };
      const schema = body?.content?.['application/json']?.schema;
      const name = typeof schema?.$ref === 'string' ? schema.$ref.split('/').pop() : undefined;
      const resolved = name === undefined ? schema : document.components.schemas[name];
      if (resolved && !(Array.isArray(resolved.required) && resolved.required.length > 0)) body.required = false;
    }
  }
  return document;
}

/**
 * The OpenAPI document from the route schemas: the named schemas (components.ts) are added to
 * Fastify, so validation and serialization resolve the same `$ref`s the document shows.
 */
export async function registerOpenApi(app: App, config: Config): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Ticket issuer',
        version: '1.0.0',
        description: DESCRIPTION,
        // The package is private (package.json has no license): no licence is granted, as npm's UNLICENSED says.
        license: { name: 'UNLICENSED', url: 'https://docs.npmjs.com/cli/v10/configuring-npm/package-json#license' },
      },
      servers: [{ url: config.baseUrl, description: 'this issuer' }],
      tags: TAGS,
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    // Components are named by their $id rather than def-0, def-1, ...
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (document) =>
      markOptionalBodies((document as { openapiObject: unknown }).openapiObject as OpenApiDocument) as never,
  });
  for (const schema of namedSchemas()) app.addSchema(schema);
}
