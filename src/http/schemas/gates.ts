import { Type } from '@sinclair/typebox';
import { named } from './components.ts';
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

const noEvent = errorAnswer(404, { description: 'NOT_FOUND: no event has this eid' });
const noGate = errorAnswer(404, { description: 'NOT_FOUND: no event has this eid, or no gate this gate_id' });

const Admits = Nullable(Type.Array(Text(100), { minItems: 1, maxItems: 100, uniqueItems: true }), {
  description: 'the ticket types this gate admits; null: every type',
});

export const Gate = named(
  'Gate',
  Type.Object(
    { gate_id: Type.String(), name: Type.String(), admits: Nullable(Type.Array(Type.String())) },
    { description: 'A gate declared for an event, and the ticket types it admits (null: every type)' },
  ),
);

const GateList = named(
  'GateList',
  Type.Object({ gates: Type.Array(Gate) }, { description: "The event's declared gates, in gate_id order" }),
);

const GateParams = Type.Object({ eid: Id(), gate_id: Id() });

export const putGateSchema = {
  ...admin,
  operationId: 'putGate',
  summary: 'Declare a gate, or change its name and the ticket types it admits',
  description:
    'A check-in at a declared gate whose `admits` does not name the ticket’s type is refused: 403 FORBIDDEN with ' +
    '`details` `{reason: "ticket_type_not_admitted", gate_id, ticket_type, holder_name}`. A gate_id that is not declared is kept for audit only.',
  params: GateParams,
  body: named('GateRequest', Strict({ name: Text(200), admits: Admits })),
  response: {
    200: json('The gate as declared now', Gate),
    ...errors(400, 401),
    404: noEvent,
    ...errors(413, 415, 429, 500),
  },
};

export const listGatesSchema = {
  ...admin,
  operationId: 'listGates',
  summary: "An event's declared gates",
  params: Type.Object({ eid: Id() }),
  response: { 200: json('The gates', GateList), ...errors(400, 401), 404: noEvent, ...errors(429, 500) },
};

export const deleteGateSchema = {
  ...admin,
  operationId: 'deleteGate',
  summary: 'Remove a gate’s declaration (its gate_id is then kept for audit only)',
  params: GateParams,
  response: { 204: empty('Removed'), ...errors(400, 401), 404: noGate, ...errors(429, 500) },
};

export const scannerGatesSchema = {
  operationId: 'listScannerGates',
  summary: "The event's gates and re-entry setting, for a scanner's offline rules",
  tags: ['scanner'],
  security: ScannerAuth,
  params: Type.Object({ eid: Id() }),
  response: {
    200: json(
      'The gates and whether a ticket that went out may come in again',
      named(
        'ScannerGates',
        Type.Object(
          { gates: Type.Array(Gate), reentry: Type.Boolean() },
          { description: "What a scanner needs to apply the event's gate rules offline" },
        ),
      ),
    ),
    ...errors(400, 401, 403, 429, 500),
  },
};

const GateCount = named(
  'GateOccupancy',
  Type.Object(
    {
      gate_id: Nullable(Type.String(), { description: 'null: scans that named no gate' }),
      name: Nullable(Type.String(), { description: 'the declared name; null for a gate that is not declared' }),
      entries: Type.Integer(),
      exits: Type.Integer(),
    },
    { description: 'Entries and exits scanned at one gate' },
  ),
);

export const occupancySchema = {
  ...admin,
  operationId: 'getOccupancy',
  summary: 'How many are inside now, and entries and exits per gate',
  description:
    '`inside` counts the tickets whose holder came in and has not gone out, exact under concurrent scans on ' +
    'several instances; `entries` minus `exits` equals it. Read in one snapshot.',
  params: Type.Object({ eid: Id() }),
  response: {
    200: json(
      'The occupancy',
      named(
        'Occupancy',
        Type.Object(
          {
            inside: Type.Integer(),
            capacity: Nullable(Type.Integer()),
            entries: Type.Integer(),
            exits: Type.Integer(),
            as_of: Type.String({ description: 'ISO 8601 UTC timestamp of the reading' }),
            gates: Type.Array(GateCount),
          },
          { description: "An event's occupancy" },
        ),
      ),
    ),
    ...errors(400, 401),
    404: noEvent,
    ...errors(429, 500),
  },
};
