import { Type } from '@sinclair/typebox';
import { named, StringEnum } from './components.ts';
import { errorAnswer, errors, Id, Instant, json, Nullable, ScannerAuth } from './common.ts';
import { EXAMPLE } from './examples.ts';

const S = Type.String();

export const Change = named(
  'Change',
  Type.Union(
    [
      Type.Object(
        {
          type: StringEnum(['checked_in']),
          tid: S,
          at: Instant,
          scanner_id: S,
          gate_id: Nullable(S),
          idempotency_key: Nullable(S, {
            description:
              'the entry’s idempotency key, which an `annulled` change names to undo exactly this entry (null only ' +
              'for an entry recorded before entries carried their key and found nowhere since)',
          }),
        },
        { description: 'An entry; `at` is its scan time' },
      ),
      Type.Object(
        {
          type: StringEnum(['checked_out']),
          tid: S,
          at: Instant,
          scanner_id: Nullable(S, { description: 'the scanner that let the holder out; null for an automatic exit' }),
          gate_id: Nullable(S),
          auto: Type.Optional(
            Type.Boolean({
              description:
                "true for an automatic exit at the start of an event day (the event's auto_exit); absent otherwise",
            }),
          ),
        },
        { description: 'An exit; `at` is the exit scan, or for an automatic exit the start of the event day' },
      ),
      Type.Object({ type: StringEnum(['revoked']), tid: S, at: Instant }),
      Type.Object({
        type: StringEnum(['token_superseded']),
        tid: S,
        jti: Nullable(S, { description: 'the superseded token; null for a token issued without jti' }),
        at: Instant,
      }),
      Type.Object(
        {
          type: StringEnum(['ticket_notes']),
          tid: S,
          attention: Type.Boolean({ description: 'the holder needs attention at the gate' }),
          checkin_text: Nullable(S, { description: 'the text shown at the gate for this ticket, or null' }),
          at: Instant,
        },
        { description: "A ticket's gate notes as the organizer set them (at issue or later); the last one holds" },
      ),
      Type.Object(
        {
          type: StringEnum(['annulled']),
          tid: S,
          idempotency_key: S,
          scanner_id: S,
          at: Instant,
        },
        {
          description:
            'An entry undone: the `checked_in` of the scan under `idempotency_key` no longer counts; `at` is ' +
            'when it was annulled (the scanner’s time, or the issuer’s for an organizer’s annul)',
        },
      ),
    ],
    { description: 'One change of a ticket that offline scanners need to know' },
  ),
);

const ChangesPage = named(
  'ChangesPage',
  Type.Object(
    {
      changes: Type.Array(Change),
      next_cursor: Type.String({ description: 'pass it as `after` to get only later changes; always present' }),
      has_more: Type.Boolean(),
    },
    { description: "A page of an event's changes, oldest first" },
  ),
);

export const changesSchema = {
  operationId: 'listChanges',
  summary: "An event's changes (check-ins, revocations, superseded tokens, gate notes) after a cursor",
  description:
    'Following next_cursor sees every change exactly once, in order, even while check-ins commit on several instances.',
  tags: ['scanner'],
  security: ScannerAuth,
  params: Type.Object({ eid: Id() }),
  querystring: Type.Object({
    after: Type.Optional(
      Type.String({
        maxLength: 64,
        pattern: '^[\\x21-\\x7e]*$',
        description: 'next_cursor of the previous page',
        'x-problem': 'must be a next_cursor of this feed, as it was given',
      }),
    ),
    limit: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,5}$',
        description: 'page size, 1 to 1000 (default 500)',
        'x-problem': 'must be a whole number from 1 to 1000',
      }),
    ),
  }),
  response: {
    200: json('The changes after the cursor', ChangesPage, {
      examples: {
        page: {
          summary: 'A check-in, a revocation, and an automatic exit at the start of the next event day',
          value: {
            changes: [
              {
                type: 'checked_in',
                tid: EXAMPLE.tid,
                at: EXAMPLE.scannedAt,
                scanner_id: EXAMPLE.scannerId,
                gate_id: 'north',
                idempotency_key: EXAMPLE.idempotencyKey,
              },
              { type: 'revoked', tid: '01JTQ5B3D5F7H9K1M3N5Q7S9W2', at: '2026-05-01T18:31:05Z' },
              {
                type: 'checked_out',
                tid: EXAMPLE.tid,
                at: '2026-05-02T06:00:00Z',
                scanner_id: null,
                gate_id: null,
                auto: true,
              },
            ],
            next_cursor: 'YzE6Mg',
            has_more: false,
          },
        },
      },
    }),
    ...errors(400, 401),
    403: errorAnswer(403, { description: "FORBIDDEN: the API key's event is another one" }),
    ...errors(429, 500),
  },
};
