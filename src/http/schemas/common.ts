import { type TSchema, Type } from '@sinclair/typebox';

/** Free text without control characters (NUL breaks some stores and every log reader). */
export const Text = (maxLength: number, minLength = 1) =>
  Type.String({ minLength, maxLength, pattern: '^[^\\u0000-\\u001f\\u007f]*$' });

/** An identifier: printable ASCII without spaces. */
export const Id = (maxLength = 128) => Type.String({ minLength: 1, maxLength, pattern: '^[\\x21-\\x7e]+$' });

/** An instant as sent: checked strictly by the domain, so only its size and characters are limited here. */
export const InstantIn = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[\\x21-\\x7e]+$',
  description: 'ISO 8601 UTC timestamp, e.g. 2026-05-01T18:30:00Z',
});
export const Instant = Type.String({ description: 'ISO 8601 UTC timestamp' });
export const NullableInstant = Type.Union([Type.String(), Type.Null()], {
  description: 'ISO 8601 UTC timestamp or null',
});
export const Nullable = <T extends TSchema>(schema: T, options: { description?: string } = {}) =>
  Type.Union([schema, Type.Null()], options);

export const ErrorBody = Type.Object({
  code: Type.String(),
  message: Type.String(),
  details: Type.Object({}, { additionalProperties: true }),
});

/** The envelope of every non-2xx answer. */
export const ErrorEnvelope = Type.Object({ error: ErrorBody }, { description: 'error envelope' });

/** The error answers a route documents, all in the envelope. */
export function errors(...statuses: number[]): Record<number, typeof ErrorEnvelope> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorEnvelope]));
}

export const PageQuery = Type.Object({
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$', description: 'page size, 1 to 1000 (default 100)' })),
  cursor: Type.Optional(
    Type.String({ maxLength: 64, pattern: '^[\\x21-\\x7e]*$', description: 'next_cursor of the previous page' }),
  ),
});

export const BearerAuth = [{ bearer: [] as string[] }];
