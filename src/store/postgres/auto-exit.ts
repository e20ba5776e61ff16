/**
 * Automatic exit on PostgreSQL (see store/auto-exit.ts): one transaction per event day, set-based
 * whatever the number of holders, each statement over at most CHUNK of them (every statement of the
 * store must end within its timeout): the day's row, the holders inside read once, then their tickets
 * locked and their presence counted out chunk by chunk (one UPDATE … RETURNING each), then their
 * changes, exit count and messages written chunk by chunk (INSERT … SELECT from arrays).
 *
 * Lock order, the one every writer keeps: the day's `auto_exits` row (only this work takes it: a second
 * instance waits on it, then finds it and does nothing), the tickets in tid order (as a batch of
 * check-ins locks them), their presence rows, and only once every holder is counted out, the event's
 * feed counter (change_counters), then its gate_counts row. A check-in of one of these holders waits
 * for the commit, then sees them out; one that committed first is seen by the re-check of the locked
 * ticket (its entry) and of its presence.
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
import { DB_NOW, NEW_MESSAGE_ID } from './outbox.ts';
import { all, type Db, numbered, type Tx } from './queries.ts';

const EVENTS = AUTO_EXIT_EVENTS_SQL.replace('auto_exit = 1', 'auto_exit');
const CLAIM_DAY = numbered(CLAIM_DAY_SQL);
const SUBSCRIBED = numbered(SUBSCRIBED_SQL);
const RECORD_EXITED = numbered(RECORD_EXITED_SQL);

/** Holders per statement: well within the statement timeout on a busy database. */
const CHUNK = 5000;

/** The holders of the event inside whose latest entry came before the day's start (by presence_inside_by_event). */
const INSIDE_BEFORE = `SELECT p.tid FROM presence p JOIN tickets t ON t.tid = p.tid
  WHERE p.eid = $1 AND p.inside AND t.checked_in_at < $2`;

/**
 * Locks these holders' tickets in tid order and counts out those still inside whose entry still came
 * before the day's start ($2): the tids counted out.
 */
const COUNT_OUT = `
  WITH locked AS (
    SELECT tid FROM tickets WHERE tid = ANY($1::text[]) AND checked_in_at < $2 ORDER BY tid FOR UPDATE)
  UPDATE presence SET inside = false, checked_out_at = $2 FROM locked
   WHERE presence.tid = locked.tid AND presence.inside
  RETURNING presence.tid`;

/**
 * The exits' changes at consecutive positions (the n-th tid at the first new position plus n - 1), the
 * exits counted under no gate and in the day start's minute, and each change's message (the n-th data) for every subscribed endpoint,
 * at its change's position. Params: eid, at, count, tids, message type, now, message data.
 */
const RECORD = `
  WITH counters AS (
    INSERT INTO change_counters (eid, last_position) VALUES ($1, $3::bigint)
    ON CONFLICT (eid) DO UPDATE SET last_position = change_counters.last_position + EXCLUDED.last_position
    RETURNING last_position
  ), fed AS (
    INSERT INTO changes (eid, position, type, tid, at, auto)
    SELECT $1, counters.last_position - $3::bigint + x.n, 'checked_out', x.tid, $2, true
      FROM counters, unnest($4::text[]) WITH ORDINALITY AS x (tid, n)
  ), counted AS (
    INSERT INTO gate_counts (eid, gate_key, entries, exits)
    SELECT $1, '', 0, $3::bigint FROM counters -- after the feed counter: every writer's lock order
    ON CONFLICT (eid, gate_key) DO UPDATE SET exits = gate_counts.exits + EXCLUDED.exits
  ), minute_counted AS (
    INSERT INTO minute_counts (eid, minute, exits, repeats)
    SELECT $1, substr($2::text, 1, 16), $3::bigint, 0 FROM counters -- after the feed counter, as gate_counts
    ON CONFLICT (eid, minute) DO UPDATE SET exits = minute_counts.exits + EXCLUDED.exits
  )
  INSERT INTO webhook_messages (message_id, webhook_id, type, data, position, occurred_at, state, next_attempt_at)
  SELECT ${NEW_MESSAGE_ID}, s.webhook_id, $5, m.data, counters.last_position - $3::bigint + m.n, $6, 'pending', ${DB_NOW}
    FROM counters, unnest($7::text[]) WITH ORDINALITY AS m (data, n), webhook_subscriptions s
   WHERE s.type IN ($5, '*') AND s.eid_key IN ($1, '')`;

const chunks = <T>(items: readonly T[]): T[][] =>
  Array.from({ length: Math.ceil(items.length / CHUNK) }, (_, n) => items.slice(n * CHUNK, (n + 1) * CHUNK));

/**
 * The events with automatic exit on. One switched on since the last look (`auto_exit_since` emptied)
 * takes `now` first (the first instance to look sets it); most looks only read.
 */
export async function listAutoExitEvents(db: Db, now: string): Promise<AutoExitEvent[]> {
  let rows = await all<Row>(db, EVENTS);
  if (rows.some((row) => row.auto_exit_since === null)) {
    await db.query('UPDATE events SET auto_exit_since = $1 WHERE auto_exit AND auto_exit_since IS NULL', [now]);
    rows = await all<Row>(db, EVENTS);
  }
  return rows.map(toAutoExitEvent);
}

/** Counts out the day's holders in one transaction, or answers null when the day was done already. */
export function runAutoExit(tx: Tx, run: AutoExitRun): Promise<number | null> {
  return tx(async (db) => {
    const claimed = await db.query(CLAIM_DAY, [run.eid, run.day, run.at, run.now]);
    if ((claimed.rowCount ?? 0) === 0) return null;
    const inside = (await all<{ tid: string }>(db, INSIDE_BEFORE, [run.eid, run.at])).map((row) => row.tid).sort();
    const out: string[] = [];
    for (const tids of chunks(inside)) {
      for (const row of await all<{ tid: string }>(db, COUNT_OUT, [tids, run.at])) out.push(row.tid);
    }
    if (out.length === 0) return 0;
    const subscribed = (await all(db, SUBSCRIBED, [AUTO_EXIT_MESSAGE_TYPE, run.eid])).length > 0;
    for (const tids of chunks(out.sort())) {
      const data = subscribed ? exitMessageData(run, tids) : [];
      await db.query(RECORD, [run.eid, run.at, tids.length, tids, AUTO_EXIT_MESSAGE_TYPE, run.now, data]);
    }
    await db.query(RECORD_EXITED, [out.length, run.eid, run.day]);
    return out.length;
  });
}
