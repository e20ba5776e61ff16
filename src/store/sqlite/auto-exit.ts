/**
 * Automatic exit on SQLite (see store/auto-exit.ts): one transaction per event day, the holders counted
 * out a batch at a time inside it, each batch by a few set-based statements over a JSON list of tids.
 */
import {
  AUTO_EXIT_EVENTS_SQL,
  AUTO_EXIT_MESSAGE_TYPE,
  type AutoExitEvent,
  type AutoExitRun,
  CLAIM_DAY_SQL,
  exitMessageData,
  RECORD_EXITED_SQL,
  SUBSCRIBED_SQL,
  toAutoExitEvent,
} from '../auto-exit.ts';
import type { Row } from '../rows.ts';
import type { SqliteContext } from './context.ts';
import { countExits } from './counters.ts';
import { NEW_ID } from './outbox.ts';

/** Holders counted out by one batch of statements. */
const BATCH = 1000;

/** The holders of the event inside whose latest entry came before the day's start (by presence_inside_by_event). */
const INSIDE_BEFORE_SQL = `SELECT p.tid FROM presence p JOIN tickets t ON t.tid = p.tid
  WHERE p.eid = ? AND p.inside = 1 AND t.checked_in_at < ?`;

const COUNT_OUT_SQL = `UPDATE presence SET inside = 0, checked_out_at = ?
  WHERE tid IN (SELECT value FROM json_each(?)) AND inside = 1`;

/** Takes `n` positions of the event's feed at once: the last of them. */
const TAKE_POSITIONS_SQL = `INSERT INTO change_counters (eid, last_position) VALUES (?, ?)
  ON CONFLICT (eid) DO UPDATE SET last_position = change_counters.last_position + excluded.last_position
  RETURNING last_position`;

/** The batch's changes, the n-th tid of the list (from 0) at the first position plus n. */
const FEED_SQL = `INSERT INTO changes (eid, position, type, tid, at, auto)
  SELECT ?, ? + key, 'checked_out', value, ?, 1 FROM json_each(?)`;

const COUNT_EXITS_SQL = `INSERT INTO gate_counts (eid, gate_key, entries, exits) VALUES (?, '', 0, ?)
  ON CONFLICT (eid, gate_key) DO UPDATE SET exits = exits + excluded.exits`;

/** Each change's message for every subscribed endpoint, at the change's position (the list's order). */
const MESSAGES_SQL = `INSERT INTO webhook_messages
    (message_id, webhook_id, type, data, position, occurred_at, state, next_attempt_at)
  SELECT ${NEW_ID}, s.webhook_id, ?, m.value, ? + m.key, ?, 'pending', ?
    FROM json_each(?) m JOIN webhook_subscriptions s ON s.type IN (?, '*') AND s.eid_key IN (?, '')`;

/**
 * The events with automatic exit on. One switched on since the last look (`auto_exit_since` emptied)
 * takes `now` first, in a transaction of its own; most looks only read.
 */
export async function listAutoExitEvents(c: SqliteContext, now: string): Promise<AutoExitEvent[]> {
  let rows = c.all<Row>(AUTO_EXIT_EVENTS_SQL);
  if (rows.some((row) => row.auto_exit_since === null)) {
    await c.tx(() =>
      c.run('UPDATE events SET auto_exit_since = ? WHERE auto_exit = 1 AND auto_exit_since IS NULL', now),
    );
    rows = c.all<Row>(AUTO_EXIT_EVENTS_SQL);
  }
  return rows.map(toAutoExitEvent);
}

/** Counts out the day's holders in one transaction, or answers null when the day was done already. */
export function runAutoExit(c: SqliteContext, run: AutoExitRun): Promise<number | null> {
  return c.tx(() => {
    if (c.run(CLAIM_DAY_SQL, run.eid, run.day, run.at, run.now) === 0) return null;
    const tids = c.all<{ tid: string }>(INSIDE_BEFORE_SQL, run.eid, run.at).map((row) => row.tid);
    const subscribed = c.one(SUBSCRIBED_SQL, AUTO_EXIT_MESSAGE_TYPE, run.eid) !== null;
    for (let from = 0; from < tids.length; from += BATCH) {
      countOut(c, run, tids.slice(from, from + BATCH), subscribed);
    }
    if (tids.length > 0) c.run(RECORD_EXITED_SQL, tids.length, run.eid, run.day);
    return tids.length;
  });
}

/** One batch: presence out, the changes at consecutive positions, the exits counted, the messages. */
function countOut(c: SqliteContext, run: AutoExitRun, tids: string[], subscribed: boolean): void {
  const list = JSON.stringify(tids);
  c.run(COUNT_OUT_SQL, run.at, list);
  const last = c.one<{ last_position: number }>(TAKE_POSITIONS_SQL, run.eid, tids.length)!.last_position;
  const first = last - tids.length + 1;
  c.run(FEED_SQL, run.eid, first, run.at, list);
  c.run(COUNT_EXITS_SQL, run.eid, tids.length);
  countExits(c, run.eid, run.at, tids.length);
  if (!subscribed) return;
  const data = JSON.stringify(exitMessageData(run, tids));
  c.run(MESSAGES_SQL, AUTO_EXIT_MESSAGE_TYPE, first, run.now, run.now, data, AUTO_EXIT_MESSAGE_TYPE, run.eid);
}
