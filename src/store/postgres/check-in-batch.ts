import type pg from 'pg';
import { isStoreUnavailable } from '../unavailable.ts';
import type { CheckInAttempt, CheckInResult, PresenceDecider } from '../store.ts';
import { batchWrite, type LoggedScan } from './check-in-writes.ts';
import { fanOutConflicts } from './outbox.ts';
import { mayConflict } from '../conflicts.ts';
import { keepCheckInCounts } from './counters.ts';
import { LOCK_TICKETS_SQL, readState } from './check-in-reads.ts';
import { type Answer, decideAll } from './check-in-decisions.ts';

/** One check-in waiting for its batch. */
export interface PendingCheckIn {
  attempt: CheckInAttempt;
  decide: PresenceDecider;
  resolve: (result: CheckInResult) => void;
  reject: (error: Error) => void;
}

/** Advisory-lock namespace of idempotency keys (the first key of the two-int form); the single path uses it too. */
export const LOCK_IDEMPOTENCY = 0x54490003;

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/**
 * Check-ins and exits that arrive together on one instance, of events with or without re-entry, are
 * applied in one transaction of two round trips instead of about ten each: its connection is pipelined
 * (the pool's `pipeline`), so the locks, the ticket locks and the read are sent together, and the write
 * and the COMMIT together; the server still runs them one after the other, each statement with its own
 * snapshot. Locks are taken in one global order, so two instances (or two batches in flight) never wait on
 * each other in a cycle: idempotency keys by their lock number, then tickets by tid (FOR UPDATE,
 * ordered), then the holders' presence by tid, then the feed counters by eid. The decisions are made
 * here in the process, item after item, by the same `decide` as the single path, and each becomes a
 * plan of moves (check-in-plan.ts) on the ticket's rows: a later item sees the ticket, its presence,
 * its entries and the keys as the earlier items of its batch left them. If the batch fails as a
 * whole, each of its check-ins is applied again alone, so that one bad item cannot fail its neighbours.
 */
export class CheckInBatcher {
  /** Scans of gates online, answered first. */
  private urgent: PendingCheckIn[] = [];
  /** Scans of uploads of scanners' queues. */
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
    private readonly maxQueued = 100,
  ) {}

  /**
   * Queues a check-in for the next batch; settles once that batch is committed (or the check-in failed).
   * A gate's own scan goes before the scans of uploads still waiting (`attempt.queued`): a holder
   * stands at that gate, while an upload's 500 scans may take a few batches.
   */
  run(attempt: CheckInAttempt, decide: PendingCheckIn['decide']): Promise<CheckInResult> {
    return new Promise((resolve, reject) => {
      (attempt.queued === true ? this.queue : this.urgent).push({ attempt, decide, resolve, reject });
      this.schedule();
    });
  }

  private get waiting(): number {
    return this.urgent.length + this.queue.length;
  }

  /**
   * The next batch: the gates' own scans first, `maxBatch` at most, then queued ones up to
   * `maxQueued`, so that a batch in flight that a gate's scan waits for is a short one.
   */
  private nextBatch(): PendingCheckIn[] {
    const batch = this.urgent.splice(0, this.maxBatch);
    return batch.concat(this.queue.splice(0, Math.max(0, Math.min(this.maxQueued, this.maxBatch) - batch.length)));
  }

  /** Check-ins of one turn of the event loop join one batch; more wait while two batches are in flight. */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.inFlight < this.maxInFlight && this.waiting > 0) {
        const batch = this.nextBatch();
        this.inFlight += 1;
        void this.execute(batch).finally(() => {
          this.inFlight -= 1;
          if (this.waiting > 0) this.schedule();
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
        for (const item of batch.concat(this.urgent.splice(0), this.queue.splice(0))) item.reject(asError(error));
        return;
      }
      // A deadlock, a constraint one item broke: each check-in gets a transaction of its own.
      await Promise.all(batch.map((item) => this.alone(item.attempt, item.decide).then(item.resolve, item.reject)));
      return;
    }
    settle();
  }

  /** Runs the batch's transaction; returns how to answer each check-in once it is committed. */
  private async transaction(batch: PendingCheckIn[]): Promise<() => void> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      const attempts = batch.map((item) => item.attempt);
      // The tickets too, before the read: its snapshot then holds every row their last writer inserted
      // (an entry, a holder's first presence), which a lock waited for inside the read would not show.
      const [, , state] = await inOrder([
        client.query(lockSql(attempts)),
        client.query(LOCK_TICKETS_SQL, [[...new Set(attempts.map((a) => a.tid))]]),
        readState(client, attempts),
      ] as const);
      const plan = decideAll(batch, state);
      let written: Promise<unknown> = Promise.resolve();
      if (plan.scans.length > 0) {
        const write = batchWrite(plan.remembered, plan.scans, plan.planned);
        written = client.query(write.text, write.values);
        const conflicts = conflictsByEvent(plan.scans);
        // Rare: the conflicts' statements follow the write, and the COMMIT follows them.
        if (conflicts.size > 0) {
          await written;
          await reportConflicts(client, conflicts);
        }
      }
      const [, commit] = await inOrder([written, client.query('COMMIT')] as const);
      // An aborted transaction's COMMIT answers ROLLBACK; an earlier statement's error has been thrown.
      if (commit.command !== 'COMMIT') throw new Error(`the batch's COMMIT answered ${commit.command}`);
      this.committedBatches += 1;
      return () => plan.answers.forEach((answer, i) => settleOne(batch[i]!, answer));
    } catch (error) {
      if (isStoreUnavailable(error)) broken = asError(error);
      else await client.query('ROLLBACK').catch((rollbackError: unknown) => (broken = asError(rollbackError)));
      throw error;
    } finally {
      client.release(broken);
    }
  }
}

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

/**
 * Statements sent together on the pipelined connection, answered in the order they were sent: waits
 * for all of them (none is left unheard) and throws the first one's error, the cause (those after it
 * fail only because the transaction was aborted).
 */
async function inOrder<T extends readonly unknown[]>(sent: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(sent);
  for (const outcome of settled) if (outcome.status === 'rejected') throw asError(outcome.reason);
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as {
    -readonly [K in keyof T]: Awaited<T[K]>;
  };
}

/**
 * The batch's duplicate scans that make conflict messages (`already_used` ones, and admissions made
 * offline that the entry rules refuse), by event: their keys and the first one's time.
 */
function conflictsByEvent(scans: LoggedScan[]): Map<string, { keys: string[]; at: string }> {
  const byEvent = new Map<string, { keys: string[]; at: string }>();
  for (const s of scans) {
    if (!mayConflict(s.outcome, s.attempt.admitted_offline) || s.replay) continue;
    const entry = byEvent.get(s.attempt.eid) ?? { keys: [], at: s.attempt.received_at };
    entry.keys.push(s.attempt.idempotency_key);
    byEvent.set(s.attempt.eid, entry);
  }
  return byEvent;
}

/** The conflict messages, and the tickets they put in conflict counted (more statements only when there are some). */
async function reportConflicts(
  client: pg.PoolClient,
  byEvent: Map<string, { keys: string[]; at: string }>,
): Promise<void> {
  for (const [eid, { keys, at }] of byEvent) {
    await fanOutConflicts(client, eid, keys, at);
    await keepCheckInCounts(client, eid, 0, keys);
  }
}
