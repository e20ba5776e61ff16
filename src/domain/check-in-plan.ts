/**
 * One write plan for every check-in writer. A decision (`CheckInVerdict`, the domain's answer on the
 * protocol's rules) becomes a plan of moves on the ticket's rows as the writer's transaction read them:
 * the ticket's last entry, the holder's presence, the counted entry, the feed's changes (each with its
 * webhook message) in order, and the counts they move (a first entry, its type's counts, a new holder of
 * the event day, a repeat at the gate). Every
 * writer applies a plan the same way, each in its dialect's same-named file: SQLite's check-ins, and
 * PostgreSQL's single transaction and check-in batch, which carries the plans of many attempts and
 * keeps each ticket's rows up to date in memory between them (`HolderRows`). Adding a move means
 * adding it here, never to a writer.
 */
import { autoExitMessage, checkedInMessage, checkedOutMessage } from '../store/outbox-data.ts';
import { lateExitMessage, type LateExit } from '../store/late-exit.ts';
import type { CheckInAttempt, CheckInVerdict, Presence } from '../store/check-in-records.ts';
import type { TicketRecord } from '../store/ticket-records.ts';
import { typeCountsMoved, type TypeCountsMoved } from '../store/report-counts.ts';
import type { OutboxMessage } from '../store/webhook-records.ts';

/** What a check-in's transaction holds of the ticket (locked), and what a plan changes. */
export interface HolderRows {
  ticket: TicketRecord;
  presence: Presence | null;
  /**
   * The ticket's exit scans answered `not_inside`, in scan order: an entry scanned before one of them
   * turns it into an exit (see late-exit.ts). Almost always none.
   */
  notInside: readonly LateExit[];
}

/** A change of the feed a plan appends, with the webhook message that reports it. */
export interface PlannedChange {
  type: 'checked_in' | 'checked_out';
  tid: string;
  at: string;
  scanner_id: string | null;
  gate_id: string | null;
  /** A `checked_in` change's entry. */
  idempotency_key: string | null;
  /** An automatic exit (no scanner, no gate). */
  auto: boolean;
  message: Omit<OutboxMessage, 'position'>;
}

/** Everything one attempt writes besides its remembered answer and its scan-log line. */
export interface CheckInPlan {
  /** The ticket's new last entry, when it changes. */
  checkedInAt: string | null;
  /** The holder's presence after the attempt, when it changes. */
  presence: Presence | null;
  /**
   * The counted entry (the limits' count), whether the holder was counted inside already, and its
   * event day (null: the verdict named none).
   */
  entry: { at: string; wasInside: boolean; day: string | null } | null;
  /** The ticket was unused: the event's `checked_in` counter moves. */
  firstEntry: boolean;
  /** The ticket's type's kept counts (report-counts.ts): a first entry moves its `checked_in`. */
  typeCounts: TypeCountsMoved[];
  /** The event day the counted entry is the ticket's first counted entry of: its holders move by one. */
  dayHolder: string | null;
  /** An entry while counted inside: its gate's `repeats` move, occupancy does not. */
  repeat: boolean;
  /** The feed's changes in order; each counts at its gate (entries or exits), an entry in its minute. */
  changes: PlannedChange[];
}

const NOTHING: CheckInPlan = {
  checkedInAt: null,
  presence: null,
  entry: null,
  firstEntry: false,
  typeCounts: [],
  dayHolder: null,
  repeat: false,
  changes: [],
};

/** Whether the ticket is in the state the entry's move starts from (the rows are locked: it always is). */
function startsFrom(ticket: TicketRecord, from: 'unused' | 'out' | 'inside'): boolean {
  if (from === 'inside') return ticket.checked_in_at !== null;
  return from === 'out' || ticket.checked_in_at === null;
}

/**
 * The plan of an attempt's verdict on the rows, and the rows after it. An entry (only from the state
 * its move names) makes the ticket's last entry the later of the two, puts the holder inside (keeping
 * when they last went out), counts the entry, appends its `checked_in`, and then, for a holder who was
 * not inside already, the exit it turns into one (late-exit.ts) and the automatic exit it missed
 * (`autoExitAt`). Presence follows scan time: an entry scanned before the holder's last exit (an
 * upload behind it) leaves them out and counts as a repeat. An exit takes a holder inside out.
 * Anything else writes nothing.
 */
export function planCheckIn(
  rows: HolderRows | null,
  attempt: CheckInAttempt,
  verdict: CheckInVerdict,
): { plan: CheckInPlan; rows: HolderRows | null } {
  const move = verdict.move;
  if (rows === null || move === null) return { plan: NOTHING, rows };
  if (move.to === 'out') return planExit(rows, attempt, move.at);
  if (!startsFrom(rows.ticket, move.from)) return { plan: NOTHING, rows };
  const { ticket, presence } = rows;
  const wasInside = presence?.inside === true;
  const last = ticket.checked_in_at !== null && ticket.checked_in_at > move.at ? ticket.checked_in_at : move.at;
  // An entry scanned before the holder's last exit (uploaded late): that exit took them out after it.
  const behindExit = !wasInside && presence?.checked_out_at != null && presence.checked_out_at > move.at;
  const checkedInAt = move.from === 'inside' || behindExit ? last : move.at;
  let after: Presence = behindExit ? presence : { inside: true, checked_out_at: presence?.checked_out_at ?? null };
  const changes: PlannedChange[] = [
    {
      type: 'checked_in',
      tid: attempt.tid,
      at: move.at,
      scanner_id: attempt.scanner_id,
      gate_id: attempt.gate_id,
      idempotency_key: attempt.idempotency_key,
      auto: false,
      message: checkedInMessage(ticket, attempt, move.at),
    },
  ];
  if (!wasInside && !behindExit) {
    const exit = rows.notInside.find(
      (e) => e.scanned_at > move.at && (after.checked_out_at === null || e.scanned_at > after.checked_out_at),
    );
    if (exit !== undefined) {
      after = { inside: false, checked_out_at: exit.scanned_at };
      changes.push(
        exitChange(attempt.tid, exit.scanned_at, exit.scanner_id, exit.gate_id, lateExitMessage(attempt, exit)),
      );
    }
  }
  const autoAt = verdict.autoExitAt;
  if (autoAt !== undefined && after.inside && checkedInAt < autoAt) {
    after = { inside: false, checked_out_at: autoAt };
    const message = autoExitMessage(attempt.eid, attempt.tid, autoAt, attempt.received_at);
    changes.push({ ...exitChange(attempt.tid, autoAt, null, null, message), auto: true });
  }
  const counted = verdict.counted === true;
  const day = verdict.day ?? null;
  const plan: CheckInPlan = {
    checkedInAt,
    presence: after,
    entry: counted ? { at: move.at, wasInside: wasInside || behindExit, day: day?.date ?? null } : null,
    firstEntry: ticket.checked_in_at === null,
    typeCounts: typeCountsMoved(ticket, { ...ticket, checked_in_at: checkedInAt }),
    dayHolder: counted && day?.first === true ? day.date : null,
    // Occupancy does not move for it: the holder was inside before it, or in and out between.
    repeat: wasInside || behindExit,
    changes,
  };
  return { plan, rows: { ...rows, ticket: { ...ticket, checked_in_at: checkedInAt }, presence: after } };
}

/** An exit: a holder inside goes out at its scan time; anyone else stays where they are. */
function planExit(rows: HolderRows, attempt: CheckInAttempt, at: string): { plan: CheckInPlan; rows: HolderRows } {
  if (rows.presence?.inside !== true) return { plan: NOTHING, rows };
  const presence = { inside: false, checked_out_at: at };
  const change = exitChange(attempt.tid, at, attempt.scanner_id, attempt.gate_id, checkedOutMessage(attempt, at));
  return { plan: { ...NOTHING, presence, changes: [change] }, rows: { ...rows, presence } };
}

function exitChange(
  tid: string,
  at: string,
  scannerId: string | null,
  gateId: string | null,
  message: Omit<OutboxMessage, 'position'>,
): PlannedChange {
  return {
    type: 'checked_out',
    tid,
    at,
    scanner_id: scannerId,
    gate_id: gateId,
    idempotency_key: null,
    auto: false,
    message,
  };
}

/** The rows after an exit scan answered `not_inside` (a late exit for an entry scanned before it). */
export function withNotInside(rows: HolderRows, exit: LateExit): HolderRows {
  const notInside = [...rows.notInside, exit].sort((a, b) => (a.scanned_at < b.scanned_at ? -1 : 1));
  return { ...rows, notInside };
}
