import { Type } from '@sinclair/typebox';
import { named } from './components.ts';
import { ADMIN_ROUTE as admin, errorAnswer, errorExample, errors, json, ScannerAuth, Strict, Text } from './common.ts';
import { EXAMPLE } from './examples.ts';

const AnnulledAnswer = named(
  'AnnulAnswer',
  Type.Object(
    {
      status: Type.Literal('annulled'),
      ticket: Type.Object(
        {
          tid: Type.String(),
          eid: Type.String(),
          holder_name: Type.String(),
          ticket_type: Type.String(),
          checked_in_at: Type.Union([Type.String(), Type.Null()], {
            description: 'the ticket’s last entry that still counts; null: unused again',
          }),
          entries: Type.Integer({ minimum: 0 }),
          attention: Type.Boolean(),
          checkin_texts: Type.Array(Type.String()),
        },
        { description: 'The ticket as it is after the annul' },
      ),
    },
    { description: 'The entry no longer counts; the holder is back where they were before it' },
  ),
);

const refusals = errorAnswer(409, {
  description:
    'CONFLICT with `details.reason`: `not_an_entry` (the scan was not a `valid` check-in), `window_passed` ' +
    '(`annulled_at` more than ANNUL_WINDOW_S after the entry’s `scanned_at`; scanners only) or `not_latest` ' +
    '(the ticket moved since: an exit, a later entry)',
  examples: {
    not_latest: {
      summary: 'The holder went out since',
      value: errorExample(
        'CONFLICT',
        'the ticket moved since this entry (an exit, or a later entry), so it can no longer be annulled',
        {
          reason: 'not_latest',
        },
      ),
    },
  },
});

const annulled = (example: unknown) =>
  json('The entry no longer counts (the same annul again answers this again)', AnnulledAnswer, {
    examples: { annulled: { summary: 'A first entry undone: the ticket is unused again', value: example } },
  });

const example = {
  status: 'annulled',
  ticket: {
    tid: EXAMPLE.tid,
    eid: EXAMPLE.eid,
    holder_name: 'Ada Lovelace',
    ticket_type: 'GA',
    checked_in_at: null,
    entries: 0,
    attention: false,
    checkin_texts: [],
  },
};

export const annulSchema = {
  operationId: 'annulCheckIn',
  summary: 'Undo an entry this scanner made (idempotent)',
  description:
    'The `valid` check-in this scanner recorded under `idempotency_key` no longer counts, when `annulled_at` ' +
    '(the device’s time of the undo, bounded like `scanned_at`) is within ANNUL_WINDOW_S (default 900 s) of the ' +
    'entry’s `scanned_at` and the entry is still the ticket’s latest move. The feed gets an `annulled` change, ' +
    'a `ticket.check_in_annulled` webhook is sent, and the scan log keeps the scan with `annulled_at`.',
  tags: ['scanner'],
  security: ScannerAuth,
  body: named(
    'AnnulRequest',
    Strict(
      {
        eid: Text(128),
        scanner_id: Text(128),
        idempotency_key: Text(64),
        annulled_at: Text(64),
      },
      'The entry to undo: the idempotency key its check-in was sent with',
    ),
  ),
  response: {
    200: annulled(example),
    ...errors(400, 401, 403),
    404: errorAnswer(404, {
      description:
        'NOT_FOUND: this scanner recorded no scan under this idempotency key (another scanner’s key included)',
    }),
    409: refusals,
    ...errors(413, 415, 429, 500),
  },
};

export const adminAnnulSchema = {
  ...admin,
  operationId: 'annulScan',
  summary: 'Undo the entry of a line of the scan log',
  description:
    'As a scanner’s annul, with no time window; `annulled_at` is the issuer’s clock. `reason` is written to ' +
    'the issuer’s log.',
  params: Type.Object({ eid: Text(128), scan_id: Type.String({ pattern: '^[0-9]{1,15}$' }) }),
  body: Type.Optional(named('AdminAnnulRequest', Strict({ reason: Type.Optional(Text(500)) }))),
  response: {
    200: annulled(example),
    ...errors(400, 401),
    404: errorAnswer(404, { description: 'NOT_FOUND: no event has this eid, or no scan of it this scan_id' }),
    409: refusals,
    ...errors(429, 500),
  },
};
