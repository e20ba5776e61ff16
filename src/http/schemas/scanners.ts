import { Type } from '@sinclair/typebox';
import { named } from './components.ts';
import { errorAnswer, errorExample, errors, Id, json, NoAuth, Nullable, Text } from './common.ts';
import { EXAMPLE } from './examples.ts';

/** Unknown fields are ignored (not refused) on the scanner API: newer scanners may send more. */
export const EnrollBody = named(
  'EnrollRequest',
  Type.Object(
    {
      // Any value is accepted here so that a malformed token, whatever its type or length, gets the
      // spec's INVALID_TOKEN rather than a schema error (the 16 KiB body limit bounds it).
      token: Type.Unknown({ description: 'enrolment token from the setup QR code: a string, st_…' }),
      scanner_id: Id(),
      scanner_name: Type.Optional(Text(200, 0)),
      scanner_platform: Type.Optional(Text(200, 0)),
      protocol_version: Type.Optional(Type.String({ maxLength: 16, description: 'protocol version, "1"' })),
      expected_eid: Type.Optional({
        ...Id(),
        description:
          'enrol only for this event: a device whose queued scans belong to it sends it, and a token of another ' +
          'event is then refused (409) without being used',
      }),
    },
    {
      description: 'Enrolment: the single-use token from the setup QR code and who the scanner is',
      examples: [
        {
          token: EXAMPLE.token,
          scanner_id: EXAMPLE.scannerId,
          scanner_name: 'Gate A iPad',
          scanner_platform: 'iOS 19',
        },
      ],
    },
  ),
);

export const EnrollAnswer = named(
  'EnrollAnswer',
  Type.Object(
    {
      api_key: Type.String({ description: 'sk_live_…; keep it in secure storage, never log it' }),
      api_key_id: Type.String({ description: 'sck_…; safe to log' }),
      scanner_name: Type.String({
        description:
          "the scanner's name: the one it sent, or, when it sent none (or a blank one), the issuer's " +
          '`<gate name>, phone N` (`Scanner N` without a gate); shown in the console and the scan log',
      }),
      scope: Type.Object({
        eid: Type.String(),
        event_name: Type.String(),
        event_date: Type.String({ description: 'ISO 8601 UTC timestamp' }),
        gate_id: Nullable(Type.String(), { description: 'null: the key applies to all gates' }),
        expires_at: Type.String({ description: 'ISO 8601 UTC timestamp; the key expires then' }),
        allow_search: Type.Boolean({
          description:
            'the key may find holders by name (`GET /api/v1/events/{eid}/tickets/search`), as its enrolment token allowed',
        }),
      }),
      issuer: Type.Object({ name: Type.String(), iss: Type.String({ description: "the issuer's base URL" }) }),
    },
    { description: 'The API key and what it is good for' },
  ),
);

const enrolled = {
  api_key: EXAMPLE.apiKey,
  api_key_id: EXAMPLE.apiKeyId,
  scanner_name: 'Gate A iPad',
  scope: {
    eid: EXAMPLE.eid,
    event_name: 'Summer Festival',
    event_date: '2026-05-01T18:00:00Z',
    gate_id: null,
    expires_at: '2026-05-03T02:00:00Z',
    allow_search: false,
  },
  issuer: { name: 'Ticket Issuer', iss: EXAMPLE.iss },
};

export const enrollSchema = {
  operationId: 'enrollScanner',
  summary: 'Exchange a single-use enrolment token for an API key',
  description:
    'The token in the body is the credential (no Bearer). Limited per IP and per token. Unknown body fields are ignored.',
  tags: ['scanner'],
  security: NoAuth,
  body: EnrollBody,
  response: {
    200: json('The scanner is enrolled: its API key, shown only here', EnrollAnswer, {
      examples: { enrolled: { summary: 'A scanner enrolled for all gates', value: enrolled } },
    }),
    400: errorAnswer(400, {
      description:
        'INVALID_TOKEN: the token is malformed, expired or already used; PROTOCOL_VERSION_UNSUPPORTED; or INVALID_REQUEST',
      examples: {
        used: {
          summary: 'A token used a second time',
          value: errorExample('INVALID_TOKEN', 'the enrolment token is malformed, expired or already used'),
        },
      },
    }),
    403: errorAnswer(403, {
      description: 'TOKEN_REVOKED: the organizer revoked the token before it was used',
      examples: {
        revoked: {
          summary: 'A revoked token',
          value: errorExample('TOKEN_REVOKED', 'the enrolment token was revoked by the organizer'),
        },
      },
    }),
    409: errorAnswer(409, {
      description:
        'CONFLICT with details.reason other_event: the token is good but for another event than expected_eid; it was not used',
      examples: {
        otherEvent: {
          summary: 'A device with queued scans of another event',
          value: errorExample(
            'CONFLICT',
            'the enrolment token is for another event than expected_eid; it was not used',
            {
              reason: 'other_event',
            },
          ),
        },
      },
    }),
    ...errors(413, 415, 429, 500),
  },
};
