import { eventDaysOf, type TicketTypeRules } from '@ticket-issuer/protocol';
import type { EventRecord, TicketRecord } from '../store/store.ts';

/** One formatter per zone: making one costs far more than formatting with it (each email's words use it). */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-GB', {
      timeZone: timezone,
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    // Zones are a few hundred names at most; the bound only keeps a mistake from growing the map.
    if (formatters.size >= 1000) formatters.clear();
    formatters.set(timezone, formatter);
  }
  return formatter;
}

/** An instant in the event's zone, in words: "Fri 5 Jun 2026, 18:30". */
export function instantText(iso: string, timezone: string): string {
  const part = Object.fromEntries(
    formatterFor(timezone)
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );
  return `${part.weekday} ${part.day} ${part.month} ${part.year}, ${part.hour}:${part.minute}`;
}

/** An event day's date ("2026-06-06") in words: "Sat 6 Jun 2026"; a calendar date, moved by no zone. */
export function dayText(date: string): string {
  return instantText(`${date}T12:00:00Z`, 'UTC').replace(/, \d\d:\d\d$/, '');
}

const DAY_MS = 86_400_000;

/** Days in words: one "Sat 6 Jun 2026", a run of three or more "Fri 5 Jun 2026 – Sun 7 Jun 2026". */
function daysText(days: readonly string[]): string {
  const runs: string[][] = [];
  for (const date of [...days].sort()) {
    const run = runs.at(-1);
    if (run && Date.parse(date) - Date.parse(run.at(-1)!) === DAY_MS) run.push(date);
    else runs.push([date]);
  }
  return runs
    .flatMap((run) => (run.length >= 3 ? [`${dayText(run[0]!)} – ${dayText(run.at(-1)!)}`] : run.map(dayText)))
    .join(', ');
}

/** What a holder reads of their ticket: every value already in words. */
export interface HolderWords {
  event: string;
  /** The event's start (and end) in its zone, with the zone's name. */
  when: string;
  holder: string;
  ticketType: string;
  /** The days and hours the ticket admits on, and its own start and end, each a line. */
  validity: string[];
  /** `Valid`, `Used <time>`, `Revoked` or `Expired`. */
  status: string;
}

/** The validity lines: days, hours, and the ticket's own start and expiry when it has them. */
function validityText(ticket: TicketRecord, event: EventRecord, type: TicketTypeRules | null): string[] {
  const zone = event.timezone;
  const eventDays = eventDaysOf(event.event_date, event.ends_at, event);
  const days = type?.valid_days?.length
    ? `Valid on ${daysText(type.valid_days)}`
    : eventDays === null
      ? 'Valid on any day'
      : eventDays.first === eventDays.last
        ? `Valid on ${dayText(eventDays.first)}`
        : `Valid on every day from ${dayText(eventDays.first)} to ${dayText(eventDays.last)}`;
  const hours = type?.hours ? `Entry from ${type.hours.from} to ${type.hours.until} (${zone})` : 'Entry at any hour';
  return [
    days,
    hours,
    ticket.valid_from === null ? null : `Not before ${instantText(ticket.valid_from, zone)}`,
    ticket.expires_at === null ? null : `Expires ${instantText(ticket.expires_at, zone)}`,
  ].filter((line): line is string => line !== null);
}

/** The ticket's status in words, the time of use in the event's zone. */
export function statusText(ticket: TicketRecord, event: EventRecord, now: string): string {
  if (ticket.revoked_at !== null) return 'Revoked';
  if (ticket.checked_in_at !== null) return `Used ${instantText(ticket.checked_in_at, event.timezone)}`;
  if (ticket.expires_at !== null && ticket.expires_at <= now) return 'Expired';
  return 'Valid';
}

/** Everything the holder page and the PDF say about a ticket. */
export function holderWords(
  ticket: TicketRecord,
  event: EventRecord,
  type: TicketTypeRules | null,
  now: string,
): HolderWords {
  const start = instantText(event.event_date, event.timezone);
  const end = event.ends_at === null ? '' : ` – ${instantText(event.ends_at, event.timezone)}`;
  return {
    event: event.name,
    when: `${start}${end} (${event.timezone})`,
    holder: ticket.holder_name,
    ticketType: ticket.ticket_type,
    validity: validityText(ticket, event, type),
    status: statusText(ticket, event, now),
  };
}
