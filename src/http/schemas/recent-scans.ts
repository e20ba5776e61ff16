import { Type } from '@sinclair/typebox';
import { ScanAnswer, ScanLogQuery } from './admin-scans.ts';
import { named } from './components.ts';
import { ADMIN_ROUTE as admin, errorAnswer, errors, Id, json, Nullable } from './common.ts';

const noEvent = errorAnswer(404, { description: 'NOT_FOUND: no event has this eid' });

export const listRecentScansSchema = {
  ...admin,
  operationId: 'listRecentScans',
  summary: "The event's latest scans, newest first",
  description:
    'The scan log read backwards, a page at a time, by index whatever its length: what a console shows first. ' +
    '`newer_cursor` then follows the log forwards from the newest scan shown (as `cursor` of the scan log).',
  params: Type.Object({ eid: Id() }),
  querystring: ScanLogQuery,
  response: {
    200: json(
      'The latest scans',
      named(
        'RecentScans',
        Type.Object({
          scans: Type.Array(ScanAnswer, { description: 'newest first' }),
          next_cursor: Nullable(Type.String(), {
            description: 'pass it as `cursor` for the scans logged before these; null at the start of the log',
          }),
          has_more: Type.Boolean({ description: 'whether older scans exist' }),
          newer_cursor: Type.String({
            description: 'pass it as `cursor` of GET /admin/v1/events/{eid}/scans for the scans logged after these',
          }),
        }),
      ),
    ),
    ...errors(400, 401),
    404: noEvent,
    ...errors(429, 500),
  },
};
