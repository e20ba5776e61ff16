import { Type } from '@sinclair/typebox';
import { named } from './components.ts';
import {
  ADMIN_ROUTE as admin,
  errorAnswer,
  errors,
  Id,
  InstantIn,
  json,
  NoBody,
  Nullable,
  PAGE_FIELDS,
  PageQuery,
  Strict,
} from './common.ts';
import { EXAMPLE } from './examples.ts';

const S = Type.String();
const NS = Nullable(Type.String());
const Time = Type.String({ description: 'ISO 8601 UTC timestamp' });
const NullableTime = Nullable(Type.String(), { description: 'ISO 8601 UTC timestamp, or null' });
const EventParams = Type.Object({ eid: Id() });
const noEvent = errorAnswer(404, { description: 'NOT_FOUND: no event has this eid' });

const EnrollmentTokenProperties = {
  token_id: Type.String({ description: 'set_…; safe to log' }),
  eid: S,
  gate_id: NS,
  expires_at: Time,
  key_expires_at: Type.String({ description: "the API key's expiry (`scope.expires_at`), ISO 8601 UTC" }),
  created_at: Time,
  used_at: NullableTime,
  revoked_at: NullableTime,
  allow_search: Type.Boolean({ description: 'the scanner it enrols may find holders by name (`scope.allow_search`)' }),
};

const EnrollmentTokenAnswer = named(
  'EnrollmentToken',
  Type.Object(EnrollmentTokenProperties, { description: 'A single-use enrolment token (never the token itself)' }),
);

const CreatedEnrollmentToken = named(
  'CreatedEnrollmentToken',
  Type.Object(
    {
      ...EnrollmentTokenProperties,
      gate_declared: Nullable(Type.Boolean(), {
        description:
          'whether gate_id names a gate the event declares (a gate_id that names one in another case is stored in ' +
          'the declared spelling); false: an undeclared gate, whose scanner no gate rule applies to (a typo?); null: no gate',
      }),
      token: Type.String({ description: 'st_…; shown only here' }),
      setup_uri: Type.String({ description: 'ticket-issuer://enroll?iss=<BASE_URL>&token=<token>' }),
      setup_qr_svg: Type.String({ description: 'the setup QR code, an SVG document' }),
      setup_qr_png: Type.String({ description: 'the setup QR code, a PNG data: URL' }),
      web_scanner_url: Type.String({
        description:
          '<BASE_URL>/scan/#setup=<URL-encoded setup_uri>: opened on a phone, enrols the web scanner at once',
      }),
      web_scanner_qr_png: Type.String({ description: 'the web scanner link as a QR code, a PNG data: URL' }),
    },
    { description: 'A new enrolment token and its setup QR code' },
  ),
);

export const createEnrollmentTokenSchema = {
  ...admin,
  operationId: 'createEnrollmentToken',
  summary: 'Create a single-use enrolment token and its setup QR (the token is shown only here)',
  params: EventParams,
  body: named(
    'CreateEnrollmentTokenRequest',
    Strict({
      gate_id: Type.Optional(Nullable(Id())),
      expires_at: Type.Optional(Nullable(InstantIn)),
      key_expires_at: Type.Optional(Nullable(InstantIn)),
      allow_search: Type.Optional(
        Type.Boolean({
          description:
            'the scanner it enrols may find holders by name (`GET /api/v1/events/{eid}/tickets/search`); default false',
        }),
      ),
    }),
  ),
  response: {
    201: json('The token, its setup URI and QR code', CreatedEnrollmentToken),
    ...errors(400, 401),
    404: noEvent,
    ...errors(413, 415, 429, 500),
  },
};

const ListedEnrollmentToken = named(
  'ListedEnrollmentToken',
  Type.Object(
    {
      token_id: Type.String({ description: 'set_…; safe to log' }),
      gate_id: NS,
      expires_at: Time,
      key_expires_at: Type.String({ description: "the API key's expiry (`scope.expires_at`), ISO 8601 UTC" }),
      created_at: Time,
      status: Type.Union(
        [Type.Literal('open'), Type.Literal('used'), Type.Literal('revoked'), Type.Literal('expired')],
        {
          description:
            'open: a scanner may still enrol with it; used: a scanner did (see scanner_id); revoked by the ' +
            'organizer before use; expired: not used by its expires_at',
        },
      ),
      used_at: NullableTime,
      scanner_id: Nullable(Type.String(), { description: 'the scanner that used the token, or null' }),
      scanner_name: Nullable(Type.String(), { description: "that scanner's enrolled name, or null" }),
      allow_search: Type.Boolean({ description: 'the scanner it enrols may find holders by name' }),
    },
    { description: 'An enrolment token as the list shows it (the token itself is shown only when created)' },
  ),
);

export const listEnrollmentTokensSchema = {
  ...admin,
  operationId: 'listEnrollmentTokens',
  summary: "The event's enrolment tokens, newest first, with where each stands and who used it",
  params: EventParams,
  response: {
    200: json(
      "The event's enrolment tokens, newest first (not paged: an event has tens of them)",
      named('EnrollmentTokenList', Type.Object({ enrollment_tokens: Type.Array(ListedEnrollmentToken) })),
    ),
    ...errors(400, 401),
    404: noEvent,
    ...errors(429, 500),
  },
};

export const revokeEnrollmentTokenSchema = {
  ...admin,
  operationId: 'revokeEnrollmentToken',
  summary: 'Revoke an unused enrolment token',
  description:
    "Idempotent. A token already used cannot be revoked (409 CONFLICT naming the scanner it enrolled): revoke that scanner's API key instead.",
  params: Type.Object({ token_id: Id() }),
  body: NoBody,
  response: {
    200: json('The revoked token', EnrollmentTokenAnswer),
    ...errors(400, 401),
    404: errorAnswer(404, { description: 'NOT_FOUND: no enrolment token has this token_id' }),
    409: errorAnswer(409, {
      description: 'CONFLICT: the token was already used; `details` names the scanner and its API key',
      examples: {
        used: {
          summary: 'A token already used',
          value: {
            error: {
              code: 'CONFLICT',
              message: `this enrolment token was already used by scanner ${EXAMPLE.scannerId} (API key ${EXAMPLE.apiKeyId}); revoke that API key instead`,
              details: { token_id: EXAMPLE.tokenId, scanner_id: EXAMPLE.scannerId, api_key_id: EXAMPLE.apiKeyId },
            },
          },
        },
      },
    }),
    ...errors(413, 415, 429, 500),
  },
};

export const ScannerRecord = named(
  'Scanner',
  Type.Object(
    {
      scanner_id: S,
      name: NS,
      platform: NS,
      api_key_id: Type.String({ description: 'sck_…' }),
      gate_id: NS,
      enrolled_at: Time,
      expires_at: Time,
      last_seen_at: Nullable(Type.String(), { description: 'kept to the minute; null before its first request' }),
      revoked_at: NullableTime,
      allow_search: Type.Boolean({ description: 'the scanner may find holders by name (`scope.allow_search`)' }),
      clock_offset_s: Nullable(Type.Integer(), {
        description:
          "the device's clock minus the issuer's, in seconds, at its last upload that carried `sent_at` (positive: " +
          'the device runs fast); null before any',
      }),
    },
    { description: 'A scanner, one record per API key' },
  ),
);

export const listScannersSchema = {
  ...admin,
  operationId: 'listScanners',
  summary: "The event's scanners, one record per API key",
  params: EventParams,
  querystring: PageQuery,
  response: {
    200: json(
      "The event's scanners, a page at a time",
      named('ScannerList', Type.Object({ scanners: Type.Array(ScannerRecord), ...PAGE_FIELDS })),
    ),
    ...errors(400, 401),
    404: noEvent,
    ...errors(429, 500),
  },
};

export const revokeApiKeySchema = {
  ...admin,
  operationId: 'revokeApiKey',
  summary: "Revoke a scanner's API key",
  params: Type.Object({ api_key_id: Id() }),
  body: NoBody,
  response: {
    200: json('The scanner record with its revoked key', ScannerRecord),
    ...errors(400, 401),
    404: errorAnswer(404, { description: 'NOT_FOUND: no API key has this api_key_id' }),
    ...errors(413, 415, 429, 500),
  },
};
