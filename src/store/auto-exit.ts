/**
 * Automatic exit at the start of each event day (CONTRACT.md, "Entry rules for real events"): with an
 * event's `auto_exit` on, every holder still inside whose latest entry came before the day's start is
 * counted out at that start, once per event and day whatever the number of instances. Each exit is
 * what a scanner's exit is (presence out, `checked_out_at` the day's start, a `checked_out` change, a
 * `ticket.checked_out` message, the exit counted), without a scanner or a gate: the change is marked
 * `auto` and the exit counts under no gate (`gate_key` ''). The day's `auto_exits` row is written in
 * the same transaction, first: a second instance's insert of it finds it and does nothing.
 */
import { spelledZone } from '@ticket-issuer/protocol';
import { autoExitMessage } from './outbox-data.ts';
import type { Row } from './rows.ts';

/** An event whose automatic exit is on, with its calendar and the instant the automatic exit took effect. */
export interface AutoExitEvent {
  eid: string;
  timezone: string;
  day_starts_at: string;
  /** When it took effect (the event's creation, or when it was switched on): only later day starts count. */
  since: string;
}

/** One event day's automatic exit. */
export interface AutoExitRun {
  eid: string;
  /** The event day (its local date at its start). */
  day: string;
  /** The day's start, stored form: each exit's time. */
  at: string;
  /** When the exits are made, stored form (the messages' `timestamp`). */
  now: string;
}

/** The events with automatic exit on (by the partial index `events_auto_exit`); SQLite's form. */
export const AUTO_EXIT_EVENTS_SQL =
  'SELECT eid, timezone, day_starts_at, auto_exit_since FROM events WHERE auto_exit = 1 ORDER BY eid';

/** An event row of AUTO_EXIT_EVENTS_SQL (`auto_exit_since` filled). */
export const toAutoExitEvent = (row: Row): AutoExitEvent => ({
  eid: row.eid as string,
  timezone: spelledZone(row.timezone as string),
  day_starts_at: row.day_starts_at as string,
  since: row.auto_exit_since as string,
});

/** Takes an event day for this transaction (params: eid, day, at, now); no row written: done already. */
export const CLAIM_DAY_SQL = `INSERT INTO auto_exits (eid, day, at, exited, done_at) VALUES (?, ?, ?, 0, ?)
  ON CONFLICT (eid, day) DO NOTHING`;

/** Records how many were counted out (params: exited, eid, day). */
export const RECORD_EXITED_SQL = 'UPDATE auto_exits SET exited = ? WHERE eid = ? AND day = ?';

/** Whether an endpoint takes the event's `ticket.checked_out` messages (params: type, eid). */
export const SUBSCRIBED_SQL = `SELECT 1 AS subscribed FROM webhook_subscriptions
  WHERE type IN (?, '*') AND eid_key IN (?, '') LIMIT 1`;

/** The type of every automatic exit's message. */
export const AUTO_EXIT_MESSAGE_TYPE = 'ticket.checked_out';

/** The `data` of each exit's `ticket.checked_out` message (the builder of every such message), as JSON text. */
export const exitMessageData = (run: AutoExitRun, tids: readonly string[]): string[] =>
  tids.map((tid) => JSON.stringify(autoExitMessage(run.eid, tid, run.at, run.now).data));
