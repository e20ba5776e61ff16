import { Type } from '@sinclair/typebox';
import { named } from './components.ts';
import { ADMIN_ROUTE as admin, errorAnswer, errors, Id, json, Nullable, PAGE_FIELDS, PageQuery } from './common.ts';

const S = Type.String();
const NS = Nullable(Type.String());
const Time = Type.String({ description: 'ISO 8601 UTC timestamp' });
const EventParams = Type.Object({ eid: Id() });
const noEvent = errorAnswer(404, { description: 'NOT_FOUND: no event has this eid' });

export const ScanAnswer = named(
  'Scan',
  Type.Object(
    {
      scan_id: Type.Integer(),
      tid: S,
      eid: S,
      outcome: Type.String({
        description:
          'valid, already_used, revoked, wrong_event, expired, invalid_signature, not_found, idempotency_conflict, ' +
          'refused, or turned_away_offline (the scanner turned the holder away offline; the ticket stayed unused)',
      }),
      reason: NS,
      replay: Type.Boolean(),
      admitted_offline: Type.Boolean(),
      api_key_id: S,
      scanner_id: S,
      scanner_name: Nullable(Type.String({ description: "the scanner's enrolled name" })),
      holder_name: Type.Optional(
        Nullable(
          Type.String({
            description: "with ?include=holder_name: the ticket's holder (null for a tid not of this event)",
          }),
        ),
      ),
      gate_id: NS,
      idempotency_key: S,
      scanned_at: Type.String({ description: 'as the scanner sent it' }),
      received_at: Type.String({ description: "the issuer's clock" }),
      annulled_at: Nullable(
        Type.String({ description: 'when the entry was annulled (the outcome stays `valid`); null when it was not' }),
      ),
      manual: Type.Boolean({
        description: 'a check-in gate staff chose from a search by the holder’s name (no ticket token)',
      }),
    },
    { description: 'One check-in attempt and its outcome' },
  ),
);

/** A page of the scan log, read either way; `include=holder_name` names each scan's holder. */
export const ScanLogQuery = Type.Object({
  ...PageQuery.properties,
  include: Type.Optional(
    Type.Literal('holder_name', { description: "`holder_name`: each scan also names its ticket's holder" }),
  ),
});

export const listScansSchema = {
  ...admin,
  operationId: 'listScans',
  summary: "The event's scan log: every check-in attempt and its outcome",
  params: EventParams,
  querystring: ScanLogQuery,
  response: {
    200: json(
      'A page of the scan log',
      named(
        'ScanLog',
        Type.Object({
          scans: Type.Array(ScanAnswer),
          next_cursor: Type.String({
            description:
              'always present: pass it as `cursor` for the scans logged after this page, now or later (a pager ' +
              'that follows it sees every scan once, one that committed late included)',
          }),
          has_more: Type.Boolean({ description: 'whether more scans follow now' }),
        }),
      ),
    ),
    ...errors(400, 401),
    404: noEvent,
    ...errors(429, 500),
  },
};

const ConflictScanProperties = { scanner_id: S, scanner_name: NS, gate_id: NS, scanned_at: Time, received_at: Time };

const Conflict = named(
  'Conflict',
  Type.Object(
    {
      tid: S,
      holder_name: S,
      first: Type.Object(ConflictScanProperties, {
        description:
          "the ticket's entry the first duplicate collided with (its valid check-in); for an admission made offline that the entry rules refuse, the ticket's entry before it, or that admission itself when there was none",
      }),
      duplicates: Type.Array(
        Type.Object({
          ...ConflictScanProperties,
          admitted_offline: Type.Boolean(),
          reason: Nullable(Type.String(), {
            description:
              "the entry rules' refusal of an admission made offline (not_valid_now, entry_limit_reached, too_soon); null for an already_used duplicate",
          }),
        }),
      ),
    },
    {
      description: 'A ticket let in more than once by scanners that could not know, or let in against its entry rules',
    },
  ),
);

export const listConflictsSchema = {
  ...admin,
  operationId: 'listConflicts',
  summary: 'Offline double entries: tickets let in by a scanner that could not know they were used',
  description:
    "A ticket is listed when one of its already_used scans, by another scanner than the valid check-in's, was admitted offline (admitted_offline: true), or carried no admitted_offline and was scanned before the ticket's valid check-in reached the issuer; or when a scanner admitted it offline and the entry rules refuse that scan (its duplicate's reason: not_valid_now, entry_limit_reached or too_soon). A scan turned away offline (admitted_offline: false) is never a conflict.",
  params: EventParams,
  querystring: PageQuery,
  response: {
    200: json(
      'A page of conflicts',
      named('ConflictList', Type.Object({ conflicts: Type.Array(Conflict), ...PAGE_FIELDS })),
    ),
    ...errors(400, 401),
    404: noEvent,
    ...errors(429, 500),
  },
};
