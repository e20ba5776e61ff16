/** The request a scanner sends to check a ticket in or let its holder out: one scan. */
import { Type } from '@sinclair/typebox';
import { named } from './components.ts';
import { Id, InstantIn } from './common.ts';
import { EXAMPLE } from './examples.ts';

/** Unknown fields are ignored (not refused) on the scanner API: newer scanners may send more. */
export const CheckInBody = named(
  'CheckInRequest',
  Type.Object(
    {
      tid: Id(),
      eid: Id(),
      scanned_at: InstantIn,
      scanner_id: Id(),
      gate_id: Type.Optional(Id()),
      idempotency_key: Type.Optional(
        Type.String({
          maxLength: 64,
          pattern: '^[\\x21-\\x7e]*$',
          description: 'UUID v4 per scan attempt; or the Idempotency-Key header',
          'x-problem': 'must be a UUID',
        }),
      ),
      ticket_token: Type.Optional(
        Type.String({ minLength: 1, maxLength: 4096, description: 'the scanned QR string (compact JWS)' }),
      ),
      signature_valid: Type.Optional(Type.Boolean({ description: "the scanner's own verdict on the signature" })),
      admitted_offline: Type.Optional(
        Type.Boolean({
          description:
            "the scanner's own offline verdict: true, it already let the holder in; false, it turned the holder " +
            'away, and the upload never checks the ticket in',
        }),
      ),
      manual: Type.Optional(
        Type.Boolean({
          description:
            'true: gate staff chose the ticket from a search by the holder’s name (no `ticket_token`); kept in the ' +
            'scan log as `manual`',
        }),
      ),
    },
    {
      description: 'One scan of a ticket. `scanned_at` may be up to 48 hours in the past (queued offline scans).',
      examples: [
        {
          tid: EXAMPLE.tid,
          eid: EXAMPLE.eid,
          scanned_at: EXAMPLE.scannedAt,
          scanner_id: EXAMPLE.scannerId,
          gate_id: 'north',
          idempotency_key: EXAMPLE.idempotencyKey,
        },
      ],
    },
  ),
);

export const CheckInHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ maxLength: 64, description: 'UUID v4 per scan attempt, instead of the body field' }),
  ),
});
