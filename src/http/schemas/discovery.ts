import { Type } from '@sinclair/typebox';
import { named } from './components.ts';
import { empty, errors, json, NoAuth } from './common.ts';
import { EXAMPLE } from './examples.ts';

const S = Type.String();

/** The public parts of a signing key: what any JOSE library needs to verify a ticket token. */
export const JwkProperties = {
  kty: Type.String({ description: '"OKP"' }),
  crv: Type.String({ description: '"Ed25519"' }),
  x: Type.String({ description: 'the public key, base64url' }),
  kid: Type.String({ description: 'the key id, as in the ticket token header' }),
  alg: Type.String({ description: '"EdDSA"' }),
  use: Type.String({ description: '"sig"' }),
};

const PublicJwk = named('PublicJwk', Type.Object(JwkProperties, { description: 'A public Ed25519 signing key (JWK)' }));

export const DiscoveryDocument = named(
  'DiscoveryDocument',
  Type.Object(
    {
      iss: Type.String({ description: "the issuer's base URL: the `iss` of its tickets" }),
      name: S,
      protocol_versions: Type.Array(S),
      endpoints: Type.Object({ enroll: S, check_in: S, check_out: S, ticket_status: S, changes: S }),
      jwks: Type.Object({ keys: Type.Array(PublicJwk) }, { description: 'the keys that verify ticket tokens' }),
      ticket_token: Type.Object({ format: S, alg: S }),
      max_offline_scan_age_seconds: Type.Integer(),
    },
    { description: 'What a scanner needs to find and trust this issuer' },
  ),
);

const CacheHeaders = {
  ETag: Type.String({ description: 'the version of the document; send it back in If-None-Match' }),
  'Cache-Control': Type.String({ description: 'public, max-age=300: the document may be cached that long' }),
};

export const discoverySchema = {
  operationId: 'getDiscoveryDocument',
  summary: 'Discovery document: endpoints, protocol versions and the public signing keys',
  description: 'Public and cacheable; revalidate with If-None-Match.',
  tags: ['discovery'],
  security: NoAuth,
  response: {
    200: json('The discovery document', DiscoveryDocument, {
      headers: CacheHeaders,
      examples: {
        document: {
          summary: 'An issuer with one signing key',
          value: {
            iss: EXAMPLE.iss,
            name: 'Ticket Issuer',
            protocol_versions: ['1'],
            endpoints: {
              enroll: `${EXAMPLE.iss}/api/v1/scanners/enroll`,
              check_in: `${EXAMPLE.iss}/api/v1/tickets/check-in`,
              check_out: `${EXAMPLE.iss}/api/v1/tickets/check-out`,
              ticket_status: `${EXAMPLE.iss}/api/v1/tickets/{tid}/status`,
              changes: `${EXAMPLE.iss}/api/v1/events/{eid}/changes`,
            },
            jwks: {
              keys: [
                {
                  kty: 'OKP',
                  crv: 'Ed25519',
                  x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
                  kid: 'k1',
                  alg: 'EdDSA',
                  use: 'sig',
                },
              ],
            },
            ticket_token: { format: 'jws', alg: 'EdDSA' },
            max_offline_scan_age_seconds: 172800,
          },
        },
      },
    }),
    304: empty('Not modified: the ETag sent in If-None-Match is still current', CacheHeaders),
    ...errors(400, 500),
  },
};
