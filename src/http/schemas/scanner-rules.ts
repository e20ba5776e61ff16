import { Type } from '@sinclair/typebox';
import { named } from './components.ts';
import { json } from './common.ts';
import { scannerRulesSchema } from './ticket-types.ts';

/** The event's rules (`ScannerRules`: gates, re-entry, calendar, automatic exit, declared types). */
const EventRules = scannerRulesSchema.response[200].content['application/json'].schema;

/** What the issuer adds to the event's rules for a device: its undo window and its clock. */
const IssuerSettings = Type.Object({
  annul_window_s: Type.Integer({
    minimum: 1,
    description:
      "the issuer's ANNUL_WINDOW_S: how long after an entry's scan its scanner may undo it; a device judges an " +
      'offline undo by it and keeps its admissions at least that long',
  }),
  server_time: Type.String({
    description: "the issuer's clock when it answered (ISO 8601 UTC), to tell how far off a device's clock is",
  }),
});

/** `GET /api/v1/events/{eid}/rules`: the event's rules, the issuer's undo window and its clock. */
export const rulesAnswerSchema = {
  ...scannerRulesSchema,
  description: `${scannerRulesSchema.description} With them, the issuer’s undo window (ANNUL_WINDOW_S) and its clock.`,
  response: {
    ...scannerRulesSchema.response,
    200: json(
      'The rules',
      named(
        'ScannerRulesAnswer',
        Type.Intersect([EventRules, IssuerSettings], {
          description: "What a scanner syncs to judge entries and undos offline, and the issuer's clock",
        }),
      ),
    ),
  },
};
