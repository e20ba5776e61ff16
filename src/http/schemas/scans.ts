import { Type } from '@sinclair/typebox';
import { MAX_SCANS_PER_UPLOAD } from '@ticket-issuer/protocol';
import { named } from './components.ts';
import { ErrorEnvelope, errorAnswer, errorExample, errors, json, Nullable, ScannerAuth } from './common.ts';
import { RetryAfterHeader } from './responses.ts';
import { EXAMPLE } from './examples.ts';

/**
 * One scan of an upload. Only its shape as an object is checked with the upload: each scan is then
 * judged on its own (its action, the single endpoint's body schema), so that one bad scan is answered
 * in its own result and never fails the others.
 */
const ScanUploadItem = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      '`action` (`check_in` or `check_out`), then the body of that endpoint (`CheckInRequest`): ' +
      '`{"action": "check_in", "tid", "eid", "scanned_at", "scanner_id", "idempotency_key", …}`',
  },
);

export const ScanUploadBody = named(
  'ScanUploadRequest',
  Type.Object(
    {
      scans: Type.Array(ScanUploadItem, {
        maxItems: MAX_SCANS_PER_UPLOAD,
        description: `at most ${MAX_SCANS_PER_UPLOAD} scans, applied in this order for each ticket`,
      }),
      sent_at: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 64,
          pattern: '^[\\x21-\\x7e]*$',
          description:
            "the device's clock when it sent the upload (ISO 8601 UTC): the issuer keeps the scanner's clock offset " +
            "(`clock_offset_s` in the organizer's scanner list)",
          'x-problem': 'must be an ISO 8601 UTC timestamp such as 2026-05-01T18:30:00Z',
        }),
      ),
    },
    {
      description: 'Queued scans in one request: each answered exactly as its single endpoint would answer it',
      examples: [
        {
          scans: [
            {
              action: 'check_in',
              tid: EXAMPLE.tid,
              eid: EXAMPLE.eid,
              scanned_at: EXAMPLE.firstScanAt,
              scanner_id: EXAMPLE.scannerId,
              idempotency_key: EXAMPLE.idempotencyKey,
              admitted_offline: true,
            },
            {
              action: 'check_out',
              tid: EXAMPLE.tid,
              eid: EXAMPLE.eid,
              scanned_at: EXAMPLE.scannedAt,
              scanner_id: EXAMPLE.scannerId,
              idempotency_key: '9b1d3f5a-7c2e-4a6b-8d0f-1e3a5c7b9d2f',
            },
          ],
        },
      ],
    },
  ),
);

const ScanUploadResult = Type.Object({
  idempotency_key: Nullable(Type.String(), { description: "the scan's idempotency_key as sent (null without one)" }),
  status_code: Type.Integer({ description: 'the HTTP status the single endpoint would have answered' }),
  body: Type.Unknown({
    description:
      'the body the single endpoint would have answered, exactly: `CheckInAnswer`, `CheckOutAnswer`, ' +
      '`InvalidSignatureAnswer` or `ErrorEnvelope` (replays, idempotency conflicts and refusals included)',
  }),
});

const ScanUploadAnswer = named(
  'ScanUploadAnswer',
  Type.Object(
    { results: Type.Array(ScanUploadResult, { description: 'one result per scan, in the order sent' }) },
    { description: 'What each scan of the upload got' },
  ),
);

export const scanUploadSchema = {
  operationId: 'uploadScans',
  summary: 'Upload queued scans (check-ins and check-outs) in one request',
  description:
    `Up to ${MAX_SCANS_PER_UPLOAD} scans, each \`{"action": "check_in" | "check_out", …that endpoint's body…}\`. ` +
    'Each scan is decided by the same code as its single endpoint and its result is exactly what that endpoint ' +
    'would have answered, status and body (replays, idempotency conflicts, refusals and invalid scans included): ' +
    'one bad scan never fails the others. Scans of one ticket are applied in the order given. The body may be up ' +
    'to 1 MiB; each scan stays bounded like a single body (64 KiB, else its result is 413). An `annul` scan is ' +
    'answered 404 `NOT_FOUND` in its result while this issuer has no annul endpoint. The upload counts as one ' +
    'request against the check-in rate limit. A malformed upload (not `{"scans": […objects…]}`, or more than ' +
    `${MAX_SCANS_PER_UPLOAD} scans) is a 400 and nothing of it is applied; a store outage is a 503 for the whole ` +
    'upload, whose retry gets each scan already applied as a replay.',
  tags: ['scanner'],
  security: ScannerAuth,
  body: ScanUploadBody,
  response: {
    200: json('One result per scan, in order', ScanUploadAnswer, {
      examples: {
        mixed: {
          summary: 'An entry admitted, then the exit of the same ticket',
          value: {
            results: [
              {
                idempotency_key: EXAMPLE.idempotencyKey,
                status_code: 200,
                body: {
                  status: 'valid',
                  ticket: {
                    tid: EXAMPLE.tid,
                    eid: EXAMPLE.eid,
                    holder_name: 'Ada Lovelace',
                    ticket_type: 'GA',
                    checked_in_at: EXAMPLE.firstScanAt,
                  },
                },
              },
              {
                idempotency_key: '9b1d3f5a-7c2e-4a6b-8d0f-1e3a5c7b9d2f',
                status_code: 200,
                body: {
                  status: 'checked_out',
                  ticket: {
                    tid: EXAMPLE.tid,
                    eid: EXAMPLE.eid,
                    holder_name: 'Ada Lovelace',
                    ticket_type: 'GA',
                    checked_in_at: EXAMPLE.firstScanAt,
                    checked_out_at: EXAMPLE.scannedAt,
                  },
                },
              },
            ],
          },
        },
      },
    }),
    400: errorAnswer(400, {
      description: `INVALID_REQUEST: the upload is not \`{"scans": […objects…]}\` or holds more than ${MAX_SCANS_PER_UPLOAD} scans; nothing was applied`,
      examples: {
        too_many: {
          summary: 'More scans than one upload may carry',
          value: errorExample(
            'INVALID_REQUEST',
            `invalid request: scans must hold at most ${MAX_SCANS_PER_UPLOAD} items`,
            {
              fields: [{ field: 'scans', problem: `must hold at most ${MAX_SCANS_PER_UPLOAD} items` }],
            },
          ),
        },
      },
    }),
    ...errors(401, 413, 415, 429, 500),
    503: json('UNAVAILABLE: the store does not answer; retry the whole upload after Retry-After', ErrorEnvelope, {
      headers: RetryAfterHeader,
    }),
  },
};
