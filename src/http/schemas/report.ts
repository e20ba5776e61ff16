import { Type } from '@sinclair/typebox';
import { named } from './components.ts';
import { ADMIN_ROUTE as admin, errorAnswer, errors, Id, json, media, Nullable } from './common.ts';

const noEvent = errorAnswer(404, { description: 'NOT_FOUND: no event has this eid' });
const Count = (description?: string) => Type.Integer({ minimum: 0, ...(description ? { description } : {}) });

const EventReport = named(
  'EventReport',
  Type.Object(
    {
      tickets: Type.Object({
        issued: Count(),
        revoked: Count(),
        checked_in: Count('tickets with at least one entry that counts (annulled entries never count)'),
        no_show: Count('tickets never checked in that are not revoked'),
      }),
      by_type: Type.Array(
        Type.Object({ ticket_type: Type.String(), issued: Count(), checked_in: Count(), no_show: Count() }),
        { description: 'per ticket type, in type order' },
      ),
      by_gate: Type.Array(
        Type.Object({
          gate_id: Nullable(Type.String(), { description: 'null: scans that named no gate' }),
          entries: Count(),
          exits: Count('exits scanned at the gate; automatic exits count under null'),
        }),
        { description: 'per gate scanned at, in gate_id order' },
      ),
      by_hour: Type.Array(
        Type.Object({
          hour: Type.String({ description: "the hour's start in the event's zone, as an instant (ISO 8601 UTC)" }),
          entries: Count(),
          exits: Count(),
          inside_at_end: Type.Integer({ description: 'holders inside when the hour ended' }),
        }),
        { description: "every hour of the event's zone from the first entry or exit to the last, oldest first" },
      ),
      by_day: Type.Array(
        Type.Object({
          date: Type.String({ description: "the event day (YYYY-MM-DD), as the event's `day_starts_at` cuts them" }),
          entries: Count(),
          unique_holders: Count('distinct tickets with an entry that day'),
        }),
        { description: 'the event days with entries, oldest first' },
      ),
      peak_inside: Type.Object(
        {
          at: Nullable(Type.String(), {
            description:
              'the start of the minute (ISO 8601 UTC) the most holders were first inside; null before any entry',
          }),
          inside: Type.Integer(),
        },
        { description: 'when the most holders were inside' },
      ),
    },
    { description: 'After the event: who came and who did not, per type, per gate, per hour and per day' },
  ),
);

export const eventReportSchema = {
  ...admin,
  operationId: 'getEventReport',
  summary: "The event's report: tickets and no-shows, per type, per gate, per hour and per day",
  description:
    "Counts of the event's tickets (no-shows: never checked in and not revoked), per ticket type and per gate; " +
    "entries, exits and holders inside per hour of the event's zone, and entries and distinct holders per event " +
    'day; the peak of holders inside. Annulled entries never count. Owners, managers, and supervisors and ' +
    'viewers of the event.',
  params: Type.Object({ eid: Id() }),
  response: {
    200: json('The report', EventReport),
    ...errors(400, 401, 403),
    404: noEvent,
    ...errors(429, 500, 503),
  },
};

const CSV = Type.String({ description: 'UTF-8 CSV with a header row' });

/** An export's schema: a CSV download, streamed a page of the store at a time. */
const exportSchema = (operationId: string, summary: string, description: string) => ({
  ...admin,
  operationId,
  summary,
  description:
    `${description} UTF-8 with a header row, streamed (any number of rows in constant memory), quoted as RFC 4180 ` +
    "says; a cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed with `'` so that " +
    'no spreadsheet runs it as a formula. `Content-Disposition: attachment` names the file. A store that fails ' +
    'before the first byte answers 503 with Retry-After; one that fails later ends the download early. ' +
    'Owners, managers, and supervisors and viewers of the event.',
  params: Type.Object({ eid: Id() }),
  response: {
    200: media('The CSV file', ['text/csv; charset=utf-8'], CSV),
    ...errors(400, 401, 403),
    404: noEvent,
    ...errors(429, 500, 503),
  },
});

export const exportTicketsSchema = exportSchema(
  'exportTickets',
  "The event's tickets as CSV",
  'One row per ticket, in tid order: tid, holder_name, email, ticket_type, order_ref, status (valid, checked_in, ' +
    'revoked, expired), first_entry_at, last_exit_at (ISO 8601 UTC, empty when none) and entries (counted ' +
    'entries; annulled ones never count).',
);

export const exportScansSchema = exportSchema(
  'exportScans',
  "The event's scan log as CSV",
  "One row per line of the scan log, in the log's order: scan_id, scanned_at, received_at, tid, holder_name, " +
    'outcome, reason, gate_id, scanner_id, scanner_name, admitted_offline, manual, replay, annulled_at.',
);
