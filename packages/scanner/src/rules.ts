/**
 * The event's rules as a scanner keeps them, so that its offline verdicts judge as the issuer does:
 * the declared gates, re-entry, the event's calendar (time zone, day start), its days (when it has an
 * end) and its declared ticket types, and the issuer's undo window and clock. Read on every sync from
 * `GET /api/v1/events/{eid}/rules`; an issuer from before that route answers 404 there, and the device
 * then reads `GET /api/v1/events/{eid}/gates` (gates and re-entry only; no ticket type is declared on
 * such an issuer, and its days are UTC days from midnight).
 */
import {
  DEFAULT_ANNUL_WINDOW_S,
  DEFAULT_EVENT_RULES,
  defaultTicketTypeRules,
  type DiscoveryDocument,
  type EventDays,
  type EventRules,
  type GateRule,
  type GatesAnswer,
  isCalendarDate,
  isKnownTimezone,
  isLocalTime,
  type RulesAnswer,
  type TicketTypeRules,
} from '@ticket-issuer/protocol';
import type { IssuerClient } from './client.ts';
import { IssuerHttpError, type ScannerError, StateCorruptError } from './errors.ts';
import { SingleFlight } from './single-flight.ts';
import { changesUrl } from './state.ts';
import { STATE_FILES, type Storage } from './storage/storage.ts';

/** What a device knows of its event's rules, as the last sync read them. */
export interface KnownRules {
  /** The declared gates by gate_id. */
  gates: Map<string, GateRule>;
  /** The event's calendar, days and re-entry setting. */
  event: EventRules;
  autoExit: boolean;
  /** The declared ticket types (a label not listed has no rules). */
  ticketTypes: TicketTypeRules[];
  /** The issuer's `ANNUL_WINDOW_S`, by which an offline undo is judged (the default until it says). */
  annulWindowS: number;
  /**
   * This device's clock minus the issuer's, in milliseconds (positive: the device is ahead), as the
   * last sync of the rules measured it; null when not known (never synced, or an issuer that does not say).
   */
  clockOffsetMs: number | null;
}

/** Before the first sync: no gate, no ticket type, UTC days, no re-entry, the default undo window. */
export const noRules = (): KnownRules => ({
  gates: new Map(),
  event: { ...DEFAULT_EVENT_RULES },
  autoExit: false,
  ticketTypes: [],
  annulWindowS: DEFAULT_ANNUL_WINDOW_S,
  clockOffsetMs: null,
});

/** The rules answer of an issuer that only has the gates route: the defaults besides gates and re-entry. */
export const rulesFromGates = (answer: GatesAnswer): RulesAnswer => ({
  gates: answer.gates,
  reentry: answer.reentry,
  timezone: DEFAULT_EVENT_RULES.timezone,
  day_starts_at: DEFAULT_EVENT_RULES.day_starts_at,
  auto_exit: false,
  event_days: null,
  ticket_types: [],
});

/** The scanner's rules route (beside the changes feed: `/api/v1/events/{eid}/rules`). */
export function rulesUrl(discovery: DiscoveryDocument, eid: string): string {
  return changesUrl(discovery, eid).replace(/\/changes$/, '/rules');
}

/** The scanner's gates route, which issuers from before the rules route have. */
export function gatesUrl(discovery: DiscoveryDocument, eid: string): string {
  return changesUrl(discovery, eid).replace(/\/changes$/, '/gates');
}

/** An ISO 8601 instant (with its zone), as the issuer writes them. */
const isInstant = (value: unknown): value is string =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:?\d{2})$/i.test(value) && !isNaN(Date.parse(value));

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const positiveOrNull = (value: unknown) => value === null || (Number.isSafeInteger(value) && (value as number) > 0);
const stringList = (value: unknown) => Array.isArray(value) && value.every((v) => typeof v === 'string');

/** Whether a gate is shaped as the gates and rules routes answer it. */
export function isGateRule(value: unknown): value is GateRule {
  return (
    isObject(value) &&
    typeof value.gate_id === 'string' &&
    (value.admits === null || stringList(value.admits)) &&
    (value.name === undefined || value.name === null || typeof value.name === 'string')
  );
}

/** A declared ticket type, its fields left out taking their defaults; null when a field is malformed. */
function ticketTypeOf(value: unknown): TicketTypeRules | null {
  if (!isObject(value) || typeof value.ticket_type !== 'string') return null;
  const type = { ...defaultTicketTypeRules(value.ticket_type) } as Record<string, unknown>;
  for (const field of Object.keys(type)) if (value[field] !== undefined) type[field] = value[field];
  const rules = type as unknown as TicketTypeRules;
  const hours = rules.hours as unknown;
  const ok =
    (rules.valid_days === null || (stringList(rules.valid_days) && rules.valid_days.every(isCalendarDate))) &&
    (hours === null || (isObject(hours) && isLocalTime(hours.from) && isLocalTime(hours.until))) &&
    positiveOrNull(rules.max_entries) &&
    positiveOrNull(rules.max_entries_per_day) &&
    positiveOrNull(rules.max_days) &&
    positiveOrNull(rules.min_minutes_between_entries) &&
    (rules.reentry === null || ['none', 'after_exit', 'any'].includes(rules.reentry)) &&
    typeof rules.attention === 'boolean' &&
    (rules.checkin_text === null || typeof rules.checkin_text === 'string');
  return ok ? rules : null;
}

/** The event's days as the rules route answers them; null when absent (an issuer from before them). */
function eventDaysOf(value: unknown, where: (what: string) => ScannerError): EventDays | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value) || !isCalendarDate(value.first) || !isCalendarDate(value.last) || value.first > value.last)
    throw where('field event_days is malformed');
  return { first: value.first, last: value.last };
}

/**
 * Checks a rules answer (the issuer's, or the copy the device keeps) and fills what an older copy
 * lacks. A time zone this device's clock library does not know cannot be judged: it is refused here
 * rather than at the gate.
 */
export function checkRules(data: unknown, where: (what: string) => ScannerError): RulesAnswer {
  if (!isObject(data)) throw where('not a JSON object');
  if (!Array.isArray(data.gates) || !data.gates.every(isGateRule)) throw where('field gates is malformed');
  if (typeof data.reentry !== 'boolean') throw where('field reentry is malformed');
  const timezone = data.timezone ?? DEFAULT_EVENT_RULES.timezone;
  if (typeof timezone !== 'string' || !isKnownTimezone(timezone)) throw where('field timezone is not a known zone');
  const dayStartsAt = data.day_starts_at ?? DEFAULT_EVENT_RULES.day_starts_at;
  if (!isLocalTime(dayStartsAt)) throw where('field day_starts_at is malformed');
  const autoExit = data.auto_exit ?? false;
  if (typeof autoExit !== 'boolean') throw where('field auto_exit is malformed');
  const listed = data.ticket_types ?? [];
  if (!Array.isArray(listed)) throw where('field ticket_types is malformed');
  const ticketTypes = listed.map(ticketTypeOf);
  if (ticketTypes.some((type) => type === null)) throw where('a ticket type is malformed');
  const annulWindow = data.annul_window_s ?? DEFAULT_ANNUL_WINDOW_S;
  const windowOk = Number.isSafeInteger(annulWindow) && (annulWindow as number) > 0;
  if (!windowOk) throw where('field annul_window_s is malformed');
  if (data.server_time !== undefined && !isInstant(data.server_time)) throw where('field server_time is malformed');
  return {
    gates: data.gates,
    reentry: data.reentry,
    timezone,
    day_starts_at: dayStartsAt,
    auto_exit: autoExit,
    event_days: eventDaysOf(data.event_days, where),
    ticket_types: ticketTypes as TicketTypeRules[],
    annul_window_s: annulWindow as number,
    ...(data.server_time === undefined ? {} : { server_time: data.server_time }),
  };
}

/**
 * The rules as verdicts read them. `deviceTime`: this device's clock when the issuer answered (halfway
 * through the request); the answer's `server_time` then tells how far off that clock is.
 */
export function knownRules(answer: RulesAnswer, deviceTime: string | null = null): KnownRules {
  const offset =
    answer.server_time === undefined || deviceTime === null
      ? null
      : Date.parse(deviceTime) - Date.parse(answer.server_time);
  return {
    gates: new Map(answer.gates.map((gate) => [gate.gate_id, gate])),
    event: {
      timezone: answer.timezone,
      day_starts_at: answer.day_starts_at,
      reentry: answer.reentry,
      event_days: answer.event_days,
    },
    autoExit: answer.auto_exit,
    ticketTypes: answer.ticket_types,
    annulWindowS: answer.annul_window_s ?? DEFAULT_ANNUL_WINDOW_S,
    clockOffsetMs: offset,
  };
}

/** Reads of the rules under way, by client (one key): reads that overlap share one request. */
const rulesInFlight = new WeakMap<IssuerClient, SingleFlight<RulesAnswer>>();

/**
 * Reads the event's rules from the issuer: the rules route, or on an issuer from before it (404
 * there) the gates route, whose answer leaves every other rule at its default. Reads through one
 * client that overlap (two syncs at once) share one request and its answer or failure.
 */
export function fetchRules(client: IssuerClient, discovery: DiscoveryDocument, eid: string): Promise<RulesAnswer> {
  let flights = rulesInFlight.get(client);
  if (!flights) rulesInFlight.set(client, (flights = new SingleFlight()));
  return flights.run(rulesUrl(discovery, eid), () => askForRules(client, discovery, eid));
}

async function askForRules(client: IssuerClient, discovery: DiscoveryDocument, eid: string) {
  try {
    return await client.rules(rulesUrl(discovery, eid));
  } catch (error) {
    if (!(error instanceof IssuerHttpError) || error.status !== 404) throw error;
    return rulesFromGates(await client.gates(gatesUrl(discovery, eid)));
  }
}

/**
 * Keeps the rules a sync read (`rules.json`), with `device_time`: this device's clock when the issuer
 * answered, beside the issuer's own `server_time`.
 */
export async function writeRules(
  storage: Storage,
  answer: RulesAnswer,
  deviceTime: string | null = null,
): Promise<void> {
  const kept = deviceTime === null ? answer : { ...answer, device_time: deviceTime };
  await storage.writeFileAtomic(STATE_FILES.rules, `${JSON.stringify(kept)}\n`);
}

/**
 * The rules the last sync read: `rules.json`, else the `gates.json` a scanner from before the rules
 * route kept (gates and re-entry), else none (never synced).
 */
export async function readRules(storage: Storage): Promise<KnownRules> {
  for (const file of [STATE_FILES.rules, STATE_FILES.gates]) {
    const text = await storage.readFile(file);
    if (text === null) continue;
    const corrupt = (what: string) => new StateCorruptError(file, what);
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw corrupt('not JSON');
    }
    const deviceTime = isObject(data) && isInstant(data.device_time) ? data.device_time : null;
    return knownRules(checkRules(data, corrupt), deviceTime);
  }
  return noRules();
}
