import { type TProperties, Type } from '@sinclair/typebox';
import { MAX_CHECKIN_TEXT } from '../../domain/ticket-notes.ts';
import { MAX_RULE_NUMBER, MAX_TICKET_TYPE } from '../../domain/ticket-types.ts';
import { CalendarDateIn, LocalTimeIn } from './calendar.ts';
import { named, StringEnum } from './components.ts';
import {
  ADMIN_ROUTE as admin,
  empty,
  errorAnswer,
  errors,
  Id,
  json,
  Nullable,
  ScannerAuth,
  Strict,
  Text,
} from './common.ts';
import { Gate } from './gates.ts';

const REENTRY_MODES = ['none', 'after_exit', 'any'] as const;
const REENTRY =
  'how a holder may come in again: "none", "after_exit" (after an exit scan), "any" (even while counted inside: ' +
  "wristbands, no exit scans); null: the event's reentry decides (false = none, true = after_exit)";

const noEvent = errorAnswer(404, { description: 'NOT_FOUND: no event has this eid' });
const noType = errorAnswer(404, {
  description: 'NOT_FOUND: no event has this eid, or it declares no ticket type with this label',
});

const Count = (description: string) =>
  Nullable(
    Type.Integer({
      minimum: 1,
      maximum: MAX_RULE_NUMBER,
      'x-problem': `must be a whole number from 1 to ${MAX_RULE_NUMBER}`,
    }),
    { description },
  );

const TicketTypeRequest = named(
  'TicketTypeRequest',
  Strict(
    {
      valid_days: Type.Optional(
        Nullable(
          Type.Array(CalendarDateIn, {
            minItems: 1,
            maxItems: 366,
            uniqueItems: true,
            'x-problem': 'must be a non-empty list of distinct dates "YYYY-MM-DD" (at most 366)',
          }),
          {
            description:
              'the event days it is valid on; null: every day of the event (the default), which for an ' +
              'event with an end means from the day of its event_date to the day of its ends_at',
          },
        ),
      ),
      hours: Type.Optional(
        Nullable(
          Strict({
            from: LocalTimeIn('a scan at this local time is inside the window'),
            until: LocalTimeIn('a scan at this local time is not'),
          }),
          {
            description:
              'a window of local times within each event day, `from` before `until` in the day’s order (a day ' +
              'starting at 06:00 orders 06:00 … 23:59, 00:00 … 05:59); null: all day (the default)',
          },
        ),
      ),
      max_entries: Type.Optional(Count('entries in all; null: no limit (the default)')),
      max_entries_per_day: Type.Optional(Count('entries per event day; null: no limit (the default)')),
      max_days: Type.Optional(
        Count(
          'the number of distinct event days on which a ticket may enter ("any 2 days of 3"): a first entry on ' +
            'one day too many is refused; re-entries on a day already used never count; null: no limit (the default)',
        ),
      ),
      reentry: Type.Optional(Nullable(StringEnum(REENTRY_MODES), { description: `${REENTRY} (the default)` })),
      min_minutes_between_entries: Type.Optional(
        Count("minutes from the ticket's last entry before the next; null: none (the default)"),
      ),
      attention: Type.Optional(Type.Boolean({ description: 'its holders need attention at the gate (default false)' })),
      checkin_text: Type.Optional(
        Nullable(Text(MAX_CHECKIN_TEXT, 0), {
          description: 'shown at the gate; trimmed; null or blank: none (the default)',
        }),
      ),
    },
    'The entry rules of a ticket type; a field left out takes its default',
  ),
);

const Hours = named(
  'Hours',
  Type.Object(
    { from: Type.String({ description: 'HH:MM, inside' }), until: Type.String({ description: 'HH:MM, outside' }) },
    { description: 'A window of local times within an event day' },
  ),
);

const RULE_PROPERTIES = {
  valid_days: Nullable(Type.Array(Type.String()), {
    description: 'event days "YYYY-MM-DD"; null: every day of the event (of `event_days`, when it has an end)',
  }),
  hours: Nullable(Hours, { description: 'null: all day' }),
  max_entries: Nullable(Type.Integer(), { description: 'null: no limit' }),
  max_entries_per_day: Nullable(Type.Integer(), { description: 'null: no limit' }),
  max_days: Nullable(Type.Integer(), { description: 'distinct event days with entries; null: no limit' }),
  reentry: Nullable(StringEnum(REENTRY_MODES), { description: REENTRY }),
  min_minutes_between_entries: Nullable(Type.Integer(), { description: 'null: none' }),
  attention: Type.Boolean(),
  checkin_text: Nullable(Type.String()),
} satisfies TProperties;

const Label = Type.String({ description: 'the label, as the tickets carry it (compared ignoring case and spaces)' });

export const TicketType = named(
  'TicketType',
  Type.Object(
    {
      ticket_type: Label,
      declared: Type.Boolean({ description: 'false: a label found on tickets, with the defaults' }),
      ...RULE_PROPERTIES,
    },
    { description: "A ticket type and its entry rules (a label's rules are its declaration's, else the defaults)" },
  ),
);

const TicketTypeRules = named(
  'TicketTypeRules',
  Type.Object({ ticket_type: Label, ...RULE_PROPERTIES }, { description: "A declared ticket type's entry rules" }),
);

const EventDays = named(
  'EventDays',
  Type.Object(
    {
      first: Type.String({ description: 'the event day of `event_date`, "YYYY-MM-DD"' }),
      last: Type.String({ description: 'the event day of `ends_at`, "YYYY-MM-DD"' }),
    },
    { description: 'The event days an event runs on, in its zone with its day start' },
  ),
);

const TicketTypeParams = Type.Object({ eid: Id(), ticket_type: Text(MAX_TICKET_TYPE) });

export const putTicketTypeSchema = {
  ...admin,
  operationId: 'putTicketType',
  summary: 'Declare a ticket type’s entry rules (days, hours, limits, re-entry, notes), or replace them',
  description:
    'The label is percent-encoded in the path and compared with the tickets’ ignoring case and surrounding ' +
    'spaces: a declaration under another spelling replaces the one declared, and keeps the new spelling.',
  params: TicketTypeParams,
  body: TicketTypeRequest,
  response: {
    200: json('The ticket type as declared now', TicketType),
    ...errors(400, 401),
    404: noEvent,
    ...errors(413, 415, 429, 500),
  },
};

export const listTicketTypesSchema = {
  ...admin,
  operationId: 'listTicketTypes',
  summary: "An event's ticket types: every declared one, and every other label found on its tickets",
  params: Type.Object({ eid: Id() }),
  response: {
    200: json(
      'The ticket types, in label order',
      named('TicketTypeList', Type.Object({ ticket_types: Type.Array(TicketType) })),
    ),
    ...errors(400, 401),
    404: noEvent,
    ...errors(429, 500),
  },
};

export const deleteTicketTypeSchema = {
  ...admin,
  operationId: 'deleteTicketType',
  summary: 'Remove a ticket type’s declaration (its tickets then take the defaults)',
  params: TicketTypeParams,
  response: { 204: empty('Removed'), ...errors(400, 401), 404: noType, ...errors(429, 500) },
};

export const scannerRulesSchema = {
  operationId: 'getScannerRules',
  summary: "The event's entry rules, for a scanner's offline verdicts",
  description:
    'The gates, the event’s re-entry, calendar, automatic exit and days (`event_days`, when it has an end), ' +
    'and its declared ticket types; a label not listed takes the defaults (no rule).',
  tags: ['scanner'],
  security: ScannerAuth,
  params: Type.Object({ eid: Id() }),
  response: {
    200: json(
      'The rules',
      named(
        'ScannerRules',
        Type.Object(
          {
            gates: Type.Array(Gate),
            reentry: Type.Boolean(),
            timezone: Type.String(),
            day_starts_at: Type.String(),
            auto_exit: Type.Boolean(),
            event_days: Nullable(EventDays, {
              description:
                'the first and last event day of an event with an end (`ends_at`): a type without ' +
                '`valid_days` is valid on these days only; null: no date bounds the event',
            }),
            ticket_types: Type.Array(TicketTypeRules),
          },
          { description: "What a scanner needs to apply the event's entry rules offline" },
        ),
      ),
    ),
    ...errors(400, 401, 403, 429, 500),
  },
};
