/** What the stores keep of an event: its settings, ticket types, gates and kept counters. */
import type { TicketTypeRules } from '@ticket-issuer/protocol';

export interface EventRecord {
  eid: string;
  name: string;
  event_date: string;
  ends_at: string | null;
  created_at: string;
  /** A ticket that went out may come in again (`valid` once more); off by default, as the spec says. */
  reentry: boolean;
  /** How many may be inside at once (the console warns near it; nobody is refused for it), or null. */
  capacity: number | null;
  /** The event's zone (an IANA name such as `Europe/Berlin`; `UTC` by default). */
  timezone: string;
  /** The local time ("HH:MM") each event day starts at; `00:00` by default. */
  day_starts_at: string;
  /** Holders still inside are counted out at the start of each event day; off by default. */
  auto_exit: boolean;
}

/** What `PATCH /admin/v1/events/{eid}` may change; absent fields stay as they are. */
export interface EventSettings {
  reentry?: boolean;
  capacity?: number | null;
  timezone?: string;
  day_starts_at?: string;
  auto_exit?: boolean;
}

/** A ticket type declared for an event: its entry rules, under the label's key (`ticketTypeKey`). */
export interface TicketTypeRecord extends TicketTypeRules {
  eid: string;
  updated_at: string;
}

/** A gate declared for an event: which ticket types it admits (null: every type). */
export interface GateRecord {
  eid: string;
  gate_id: string;
  name: string;
  admits: string[] | null;
  updated_at: string;
}

export interface EventCounters {
  issued: number;
  checked_in: number;
  revoked: number;
  /** Tickets let in twice by offline scanners (see `listConflicts`). */
  conflicts: number;
}
