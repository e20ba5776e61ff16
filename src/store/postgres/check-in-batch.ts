import type pg from 'pg';
import { keyRefusal } from '../key-standing.ts';
import { type KnownAttempt, replayOrConflict } from '../replay.ts';
import { type Row, TICKET_COLUMNS_SQL, toGate } from '../rows.ts';
import { isStoreUnavailable } from '../unavailable.ts';
import type {
  ApiKeyRecord,
  CheckInAttempt,
  CheckInDecider,
  CheckInResult,
  CheckInVerdict,
  GateRecord,
  ScanOutcome,
  TicketRecord,
} from '../store.ts';
import { batchWrite, type CheckedIn, type LoggedScan, type Remembered } from './check-in-writes.ts';
import { fanOutConflicts } from './outbox.ts';
import { mayConflict } from '../conflicts.ts';
import { keepCheckInCounts } from './counters.ts';
import { recordLateExit } from './check-ins.ts';
import { firstLateExit, type LateExit } from '../late-exit.ts';

/** One check-in waiting for its batch. */
export interface PendingCheckIn {
  attempt: CheckInAttempt;
  decide: CheckInDecider;
  resolve: (result: CheckInResult) => void;
  reject: (error: Error) => void;
}

/** Advisory-lock namespace of idempotency keys (the first key of the two-int form); the single path uses it too. */
export const LOCK_IDEMPOTENCY = 0x54490003;

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/**
 * What a batch reads once its idempotency keys are locked, in one statement: the tickets (locked,
 * in tid order), the standing of the API keys, the answers already given under the keys, the
 * declared gates the check-ins name, the exits answered `not_inside` of the tickets not yet used
 * (by index among each ticket's scans; almost always none), which a first entry may turn into exits,
 * and the counted entries of the tickets used (by index `entries_by_ticket`).
 */
const READ_SQL = `
  WITH locked AS (SELECT ${TICKET_COLUMNS_SQL} FROM tickets WHERE tid = ANY($1::text[]) ORDER BY tid FOR UPDATE),
       keys AS (SELECT api_key_id, revoked_at, expires_at FROM api_keys WHERE api_key_id = ANY($2::text[])),
       known AS (
         SELECT i.eid, i.idempotency_key, i.fingerprint, i.http_status, i.body, i.outcome, i.reason
         FROM idempotency_keys i JOIN unnest($3::text[], $4::text[]) AS k (eid, idempotency_key)
           ON i.eid = k.eid AND i.idempotency_key = k.idempotency_key),
       named AS (
         SELECT DISTINCT g.* FROM gates g JOIN unnest($5::text[], $6::text[]) AS n (eid, gate_id)
           ON g.eid = n.eid AND g.gate_id = n.gate_id),
       late AS (
         SELECT s.tid, s.scanner_id, s.gate_id, s.scanned_at, s.scan_id FROM locked l
           JOIN scans s ON s.eid = l.eid AND s.outcome = 'not_inside' AND s.tid = l.tid AND NOT s.replay
          WHERE l.checked_in_at IS NULL),
       counted AS (
         SELECT e.tid, e.scanned_at FROM locked l JOIN entries e ON e.tid = l.tid AND e.annulled_at IS NULL
          WHERE l.checked_in_at IS NOT NULL)
  SELECT (SELECT json_agg(locked) FROM locked) AS tickets, (SELECT json_agg(keys) FROM keys) AS keys,
         (SELECT json_agg(known) FROM known) AS known, (SELECT json_agg(named) FROM named) AS gates,
         (SELECT json_agg(late ORDER BY late.scanned_at, late.scan_id) FROM late) AS late_exits,
         (SELECT json_agg(counted) FROM counted) AS entries`;

/**
 * Check-ins that arrive together on one instance are applied in one transaction of four round trips
 * (lock, read, write, commit) instead of about ten each. Locks are taken in one global order, so two
 * instances (or two batches in flight) never wait on each other in a cycle: idempotency keys by
 * their lock number, then tickets by tid (FOR UPDATE, ordered), then the feed counters by eid.
 * The decisions are made here in the process, item after item, by the same `decide` as the single
 * path: a later item sees the ticket and the keys as the earlier items of its batch left them.
 * If the batch fails as a whole, each of its check-ins is applied again alone, so that one bad item
 * cannot fail its neighbours.
 */
export class CheckInBatcher {
  private queue: PendingCheckIn[] = [];
  private inFlight = 0;
  private scheduled = false;
  /** How many batches were committed: what a benchmark or a test reads to see batching at work. */
  committedBatches = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly alone: (attempt: CheckInAttempt, decide: PendingCheckIn['decide']) => Promise<CheckInResult>,
    private readonly maxInFlight = 2,
    private readonly maxBatch = 250,
  ) {}

  /** Queues a check-in for the next batch; settles once that batch is committed (or the check-in failed). */
  run(attempt: CheckInAttempt, decide: PendingCheckIn['decide']): Promise<CheckInResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ attempt, decide, resolve, reject });
      this.schedule();
    });
  }

  /** Check-ins of one turn of the event loop join one batch; more wait while two batches are in flight. */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        this.inFlight += 1;
        void this.execute(batch).finally(() => {
          this.inFlight -= 1;
          if (this.queue.length > 0) this.schedule();
        });
      }
    });
  }

  private async execute(batch: PendingCheckIn[]): Promise<void> {
    let settle: (() => void) | null = null;
    try {
      settle = await this.transaction(batch);
    } catch (error) {
      // A database that cannot serve would fail each of them again, and make them wait twice as long:
      // every check-in gets the batch's answer (a 503; a retry under its key learns what was committed).
      // Those still queued would meet the same outage after waiting for it: they are answered now too.
      if (isStoreUnavailable(error)) {
        for (const item of batch.concat(this.queue.splice(0))) item.reject(asError(error));
        return;
      }
      // A deadlock, a constraint one item broke: each check-in gets a transaction of its own.
      await Promise.all(batch.map((item) => this.alone(item.attempt, item.decide).then(item.resolve, item.reject)));
      return;
    }
    settle();
  }

  /** Items left to a transaction each, one after another in the batch's order. */
  private async runAlone(items: PendingCheckIn[]): Promise<void> {
    for (const item of items) await this.alone(item.attempt, item.decide).then(item.resolve, item.reject);
  }

  /** Runs the batch's transaction; returns how to answer each check-in once it is committed. */
  private async transaction(batch: PendingCheckIn[]): Promise<() => void> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query(lockSql(batch.map((item) => item.attempt)));
      const state = await readState(client, batch);
      const plan = decideAll(batch, state);
      if (plan.scans.length > 0) {
        const write = batchWrite(plan.remembered, plan.scans, plan.checkedIn);
        await client.query(write.text, write.values);
        await reportConflicts(client, plan.scans);
        // After the batch's changes: a holder let in and out again reads in that order in the feed.
        for (const { entry, exit } of plan.lateExits) await recordLateExit(client, entry, exit);
      }
      await client.query('COMMIT');
      this.committedBatches += 1;
      return () => {
        plan.answers.forEach((answer, i) => {
          if (!plan.deferred.includes(i)) settleOne(batch[i]!, answer);
        });
        void this.runAlone(plan.deferred.map((i) => batch[i]!));
      };
    } catch (error) {
      if (isStoreUnavailable(error)) broken = asError(error);
      else await client.query('ROLLBACK').catch((rollbackError: unknown) => (broken = asError(rollbackError)));
      throw error;
    } finally {
      client.release(broken);
    }
  }
}

/** What the batch's transaction found. */
interface BatchState {
  tickets: Map<string, TicketRecord>;
  keys: Map<string, Pick<ApiKeyRecord, 'revoked_at' | 'expires_at'>>;
  known: Map<string, KnownAttempt>;
  /** The declared gates named, by eid and gate_id. */
  gates: Map<string, GateRecord>;
  /** The `not_inside` exits of unused tickets, by tid, in scan order. */
  lateExits: Map<string, LateExit[]>;
  /** The counted entries' `scanned_at`, by tid. */
  entries: Map<string, string[]>;
}

/** Each check-in's result, or the error its `decide` threw (nothing of it is stored then). */
type Answer = { ok: true; result: CheckInResult } | { ok: false; error: Error };

/** The placeholder answer of a deferred item (see BatchPlan.deferred), replaced before anyone sees it. */
const DEFERRED: CheckInResult = { kind: 'answered', answer: { http_status: 500, body: null }, replay: false };

function settleOne(item: PendingCheckIn, answer: Answer): void {
  if (answer.ok) item.resolve(answer.result);
  else item.reject(answer.error);
}

/**
 * The lock number of an idempotency key, the second key of its advisory lock: a 32-bit FNV-1a of
 * `eid:key` (a collision only makes two keys share a lock). The single path locks the same number.
 */
export function lockNumber(attempt: CheckInAttempt): number {
  let hash = 0x811c9dc5;
  const text = `${attempt.eid}:${attempt.idempotency_key}`;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}

/**
 * BEGIN and the idempotency-key locks, in ascending order, as one simple query (its values are
 * numbers made here, so it needs no parameters). A separate statement: the read that follows takes
 * its snapshot after every lock is granted, so it sees the answer of whoever held a key before.
 */
function lockSql(attempts: CheckInAttempt[]): string {
  const numbers = [...new Set(attempts.map(lockNumber))].sort((a, b) => a - b);
  const locks = numbers.map((n) => `pg_advisory_xact_lock(${LOCK_IDEMPOTENCY}, ${n})`).join(', ');
  return `BEGIN; SELECT ${locks}`;
}

const knownKey = (eid: string, idempotencyKey: string) => `${eid}\u0000${idempotencyKey}`;

async function readState(client: pg.PoolClient, batch: PendingCheckIn[]): Promise<BatchState> {
  const attempts = batch.map((item) => item.attempt);
  const gated = attempts.filter((a) => a.gate_id !== null);
  const { rows } = await client.query<Row>(READ_SQL, [
    [...new Set(attempts.map((a) => a.tid))],
    [...new Set(attempts.map((a) => a.api_key_id))],
    attempts.map((a) => a.eid),
    attempts.map((a) => a.idempotency_key),
    gated.map((a) => a.eid),
    gated.map((a) => a.gate_id!),
  ]);
  const row = rows[0]!;
  const list = <T>(value: unknown) => (value ?? []) as T[];
  return {
    tickets: new Map(list<TicketRecord>(row.tickets).map((t) => [t.tid, t])),
    keys: new Map(list<ApiKeyRecord>(row.keys).map((k) => [k.api_key_id, k])),
    known: new Map(
      list<KnownAttempt & { eid: string; idempotency_key: string }>(row.known).map((k) => [
        knownKey(k.eid, k.idempotency_key),
        k,
      ]),
    ),
    gates: new Map(list<Row>(row.gates).map((g) => [knownKey(g.eid as string, g.gate_id as string), toGate(g)])),
    lateExits: groupByTicket(list<LateExit & { tid: string }>(row.late_exits)),
    entries: new Map(
      [...groupByTicket(list<{ tid: string; scanned_at: string }>(row.entries))].map(([tid, rows]) => [
        tid,
        rows.map((e) => e.scanned_at),
      ]),
    ),
  };
}

function groupByTicket<T extends { tid: string }>(rows: T[]): Map<string, Omit<T, 'tid'>[]> {
  const byTid = new Map<string, Omit<T, 'tid'>[]>();
  for (const { tid, ...row } of rows) byTid.set(tid, [...(byTid.get(tid) ?? []), row]);
  return byTid;
}

/** Everything the batch writes, in item order, and each item's answer. */
interface BatchPlan {
  answers: Answer[];
  remembered: Remembered[];
  scans: LoggedScan[];
  checkedIn: CheckedIn[];
  /** Exits answered `not_inside` that a first entry of the batch turns into exits (see late-exit.ts). */
  lateExits: { entry: CheckInAttempt; exit: LateExit }[];
  /**
   * Items the batch leaves to a transaction of their own, after it commits, in order: an entry that
   * counts while the ticket is used (an offline admission the rules refuse now), and every later item
   * of its ticket. Batches carry first entries only.
   */
  deferred: number[];
}

/**
 * The single path's rules, item after item, on the state the batch read: refused keys store nothing,
 * known keys replay (or conflict), new keys are decided on the ticket as the batch has left it.
 */
function decideAll(batch: PendingCheckIn[], state: BatchState): BatchPlan {
  const plan: BatchPlan = { answers: [], remembered: [], scans: [], checkedIn: [], lateExits: [], deferred: [] };
  const deferredTickets = new Set<string>();
  const log = (attempt: CheckInAttempt, outcome: ScanOutcome, reason: string | null, replay: boolean) =>
    plan.scans.push({ attempt, outcome, reason, replay });
  for (const [index, { attempt, decide }] of batch.entries()) {
    if (deferredTickets.has(attempt.tid)) {
      plan.deferred.push(index);
      plan.answers.push({ ok: true, result: DEFERRED });
      continue;
    }
    const refusal = keyRefusal(state.keys.get(attempt.api_key_id) ?? null, attempt.received_at);
    if (refusal) {
      plan.answers.push({ ok: true, result: refusal });
      continue;
    }
    const known = state.known.get(knownKey(attempt.eid, attempt.idempotency_key));
    if (known) {
      const again = replayOrConflict(attempt, known);
      // One line per scan, whatever the retries: a replay writes none.
      if (!again.replay) log(attempt, again.outcome, again.reason, false);
      plan.answers.push({ ok: true, result: again.result });
      continue;
    }
    const ticket = state.tickets.get(attempt.tid) ?? null;
    let verdict: CheckInVerdict;
    try {
      const gate = attempt.gate_id === null ? null : (state.gates.get(knownKey(attempt.eid, attempt.gate_id)) ?? null);
      verdict = decide(ticket, gate, state.entries.get(attempt.tid) ?? []);
    } catch (error) {
      plan.answers.push({ ok: false, error: asError(error) });
      continue;
    }
    // Batches carry first entries only (an event with re-entry takes the presence path), and no
    // automatic exit an entry missed (rare: an offline entry uploaded after the next day start).
    const move = verdict.move;
    if (move?.to === 'inside' && (move.from !== 'unused' || verdict.autoExitAt !== undefined)) {
      deferredTickets.add(attempt.tid);
      plan.deferred.push(index);
      plan.answers.push({ ok: true, result: DEFERRED });
      continue;
    }
    if (move?.to === 'inside' && ticket !== null && ticket.checked_in_at === null) {
      state.tickets.set(ticket.tid, { ...ticket, checked_in_at: move.at });
      state.entries.set(ticket.tid, [move.at]);
      plan.checkedIn.push({ attempt, at: move.at });
      const exit = firstLateExit(state.lateExits.get(ticket.tid) ?? [], move.at);
      if (exit !== null) plan.lateExits.push({ entry: attempt, exit });
    }
    const remembered: KnownAttempt = {
      fingerprint: attempt.fingerprint,
      http_status: verdict.answer.http_status,
      body: JSON.stringify(verdict.answer.body),
      outcome: verdict.outcome,
      reason: verdict.reason,
    };
    state.known.set(knownKey(attempt.eid, attempt.idempotency_key), remembered);
    plan.remembered.push({ attempt, known: remembered });
    log(attempt, verdict.outcome, verdict.reason, false);
    plan.answers.push({ ok: true, result: { kind: 'answered', answer: verdict.answer, replay: false } });
  }
  return plan;
}

/**
 * The conflict messages of the batch's duplicate scans (`already_used` ones, and admissions made offline
 * that the entry rules refuse), and the tickets they put in conflict counted (rare: more statements
 * only when there are some).
 */
async function reportConflicts(client: pg.PoolClient, scans: LoggedScan[]): Promise<void> {
  const byEvent = new Map<string, { keys: string[]; at: string }>();
  for (const s of scans) {
    if (!mayConflict(s.outcome, s.attempt.admitted_offline) || s.replay) continue;
    const entry = byEvent.get(s.attempt.eid) ?? { keys: [], at: s.attempt.received_at };
    entry.keys.push(s.attempt.idempotency_key);
    byEvent.set(s.attempt.eid, entry);
  }
  for (const [eid, { keys, at }] of byEvent) {
    await fanOutConflicts(client, eid, keys, at);
    await keepCheckInCounts(client, eid, 0, keys);
  }
}
