import { Type } from '@sinclair/typebox';
import { errors, Id, Nullable, Text } from './common.ts';

export const EnrollBody = Type.Object({
  // Any value is accepted here so that a malformed token, whatever its type or length, gets the
  // spec's INVALID_TOKEN rather than a schema error (the 16 KiB body limit bounds it).
  token: Type.Unknown({ description: 'enrolment token from the setup QR code: a string, st_…' }),
  scanner_id: Id(),
  scanner_name: Type.Optional(Text(200, 0)),
  scanner_platform: Type.Optional(Text(200, 0)),
  protocol_version: Type.Optional(Type.String({ maxLength: 16, description: 'protocol version, "1"' })),
});

export const EnrollAnswer = Type.Object({
  api_key: Type.String({ description: 'sk_live_…; keep it in secure storage, never log it' }),
  api_key_id: Type.String({ description: 'sck_…; safe to log' }),
  scope: Type.Object({
    eid: Type.String(),
    event_name: Type.String(),
    event_date: Type.String(),
    gate_id: Nullable(Type.String()),
    expires_at: Type.String(),
  }),
  issuer: Type.Object({ name: Type.String(), iss: Type.String() }),
});

export const enrollSchema = {
  summary: 'Exchange a single-use enrolment token for an API key',
  tags: ['scanner'],
  body: EnrollBody,
  response: { 200: EnrollAnswer, ...errors(400, 403, 413, 415, 429, 500) },
};
