import { Type } from '@sinclair/typebox';
import { named } from './components.ts';
import { ADMIN_ROUTE as admin, errorAnswer, errors, Id, json, Nullable } from './common.ts';

const noEvent = errorAnswer(404, { description: 'NOT_FOUND: no event has this eid' });

export const arrivalsSchema = {
  ...admin,
  operationId: 'getArrivals',
  summary: 'Entries per gate over time, for a chart',
  description:
    "Entries (first entries and re-entries) per gate, in buckets of scan time from the event's first entry to " +
    'its last: the narrowest of 1, 5, 10, 15, 30, 60, 120, 360, 720 or 1440 minutes that keeps them to about ' +
    '48. Read from counts kept with each entry, so its cost does not grow with the number of tickets.',
  params: Type.Object({ eid: Id() }),
  response: {
    200: json(
      'The arrivals',
      named(
        'Arrivals',
        Type.Object(
          {
            bucket_minutes: Type.Integer({ description: 'the width of each bucket' }),
            buckets: Type.Array(Type.String(), { description: "each bucket's start, ISO 8601 UTC, oldest first" }),
            gates: Type.Array(
              Type.Object({
                gate_id: Nullable(Type.String(), { description: 'null: scans that named no gate' }),
                entries: Type.Array(Type.Integer(), {
                  description: 'entries in each bucket, in the order of `buckets`',
                }),
                total: Type.Integer(),
              }),
            ),
          },
          { description: "An event's entries per gate over time" },
        ),
      ),
    ),
    ...errors(400, 401),
    404: noEvent,
    ...errors(429, 500),
  },
};
