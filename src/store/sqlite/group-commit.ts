import type Database from 'better-sqlite3';
/**
 * What keeps state of its own over a group (the kept counts, the feed's positions): told when the
 * group and each unit begin, whether each unit was kept or rolled back, and when the group is about to
 * commit (`flush`, inside its transaction) or failed (`end`).
 */
export interface GroupMember {
  beginGroup(): void;
  beginUnit(): void;
  keepUnit(): void;
  dropUnit(): void;
  flush(): void;
  end(): void;
}

/** Several members told as one, in order. */
export function groupMembers(...members: GroupMember[]): GroupMember {
  return {
    beginGroup: () => members.forEach((m) => m.beginGroup()),
    beginUnit: () => members.forEach((m) => m.beginUnit()),
    keepUnit: () => members.forEach((m) => m.keepUnit()),
    dropUnit: () => members.forEach((m) => m.dropUnit()),
    flush: () => members.forEach((m) => m.flush()),
    end: () => members.forEach((m) => m.end()),
  };
}

interface Job {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: Error };

/** Thrown to roll a group's transaction back when one of its units must be undone alone (see GroupCommit). */
const UNDO_UNIT = new Error('a unit of the group is to be undone alone');

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/**
 * Group commit: units of work queued together run in one IMMEDIATE transaction, so that requests
 * arriving together share one commit (and one fsync) instead of one each. A unit that throws leaves
 * nothing of its own; its neighbours commit. Every promise settles after the commit is durable
 * (`durable`, the store's fsync off the event loop), so nothing is answered before it is on disk; if
 * the commit or the fsync fails, every unit of the group fails.
 *
 * How a unit that throws leaves nothing: a check-in refused by its decision throws before it writes
 * (its scan window, its signature), so it has nothing to undo. The units run one after the other in
 * the transaction itself; one that throws having changed rows (SQLite's `total_changes()` moved)
 * aborts the attempt: the transaction rolls back and the group runs again with each unit in a
 * savepoint, which rolls back that unit only. A savepoint for every unit cost about a fifth of a
 * group's time on the event loop (SQLite copies each page a unit changes, to be able to give it
 * back), for a case that comes almost never: a unit's writes failing midway. Units are decisions on
 * what they read, without effects outside the transaction and the group's members (told that the
 * first attempt ended), so running one again decides the same.
 *
 * When is a group closed? At the end of the event-loop turn in which its first unit arrived, unless
 * the previous group's fsync is still running: then it stays open until that fsync ends. Its units
 * could not be answered sooner anyway (their own fsync can only start once the running one ends),
 * and each commit costs the event loop about as much as a few units, so waiting turns many small
 * groups into one.
 */
export class GroupCommit {
  private queue: Job[] = [];
  /** The fsync of the last group, while it runs. */
  private syncing: Promise<void> | null = null;
  /** What the next groups wait for (see `hold`), while it runs. */
  private held: Promise<void> | null = null;
  /** How many groups were committed: what a benchmark or a test reads to see grouping at work. */
  committedGroups = 0;
  /** How many groups ran again, each unit in a savepoint, because a unit threw after writing: for tests. */
  groupsRunAgain = 0;

  /**
   * A unit in a savepoint of the group's transaction: one wrapper made once, not one per unit
   * (better-sqlite3's `transaction()` builds four functions and their properties each time it is called).
   */
  private readonly savepoint: (work: () => unknown) => unknown;

  constructor(
    private readonly db: Database.Database,
    private readonly durable: () => Promise<void> = () => Promise.resolve(),
    /** What the units move per group (kept counts, feed positions): written once before its COMMIT. */
    private readonly counts: GroupMember | null = null,
  ) {
    this.savepoint = db.transaction((work: () => unknown) => work());
    this.changes = db.prepare('SELECT total_changes()').pluck();
  }

  /** SQLite's count of the rows the connection's statements changed: what tells whether a unit wrote. */
  private readonly changes: Database.Statement;

  /**
   * Runs the group's units in one transaction and commits it: each in a savepoint of its own when
   * `savepoints`, else one after the other. Null when a unit threw after writing without a savepoint:
   * the transaction was rolled back, and nothing of the group stays.
   */
  private commit(jobs: Job[], savepoints: boolean): Outcome[] | null {
    const outcomes: Outcome[] = [];
    try {
      this.db
        .transaction(() => {
          this.counts?.beginGroup();
          for (const job of jobs) {
            this.counts?.beginUnit();
            const changesBefore = savepoints ? 0 : this.changes.get();
            try {
              // A transaction function called inside another one runs as a savepoint.
              const value = savepoints ? this.savepoint(job.work) : job.work();
              this.counts?.keepUnit();
              outcomes.push({ ok: true, value });
            } catch (error) {
              this.counts?.dropUnit();
              // A full disk or an I/O error may make SQLite roll the whole transaction back: the units
              // before are undone too, and one after would run in a transaction of its own. The group
              // fails as one, and nothing of it stays.
              if (!this.db.inTransaction) throw error;
              if (!savepoints && this.changes.get() !== changesBefore) throw UNDO_UNIT;
              outcomes.push({ ok: false, error: asError(error) });
            }
          }
          this.counts?.flush();
        })
        .immediate();
    } catch (error) {
      this.counts?.end();
      if (error === UNDO_UNIT) return null;
      throw error;
    }
    return outcomes;
  }

  /** Runs `work` in the next group; resolves with its result once the group is committed. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.queue.length === 1 && this.syncing === null && this.held === null) setImmediate(() => this.flush());
    });
  }

  /**
   * Begins no group until `task` has ended (the checkpointer's last pass before the WAL restarts,
   * see checkpointer.ts): units queue meanwhile, and form the next group. Once at a time.
   */
  hold(task: () => Promise<unknown>): void {
    if (this.held !== null) return;
    const held = task().then(
      () => undefined,
      () => undefined,
    );
    this.held = held;
    void held.then(() => {
      this.held = null;
      if (this.syncing === null) this.flush();
    });
  }

  private flush(): void {
    const jobs = this.queue;
    this.queue = [];
    if (jobs.length === 0) return;
    if (!this.db.open) {
      for (const job of jobs) job.reject(new Error('the store is closed'));
      return;
    }
    let outcomes: Outcome[];
    try {
      const plain = this.commit(jobs, false);
      if (plain === null) this.groupsRunAgain += 1;
      outcomes = plain ?? this.commit(jobs, true)!;
      this.committedGroups += 1;
    } catch (error) {
      for (const job of jobs) job.reject(asError(error));
      return;
    }
    const syncing = this.durable().then(
      () =>
        jobs.forEach((job, i) => {
          const outcome = outcomes[i]!;
          if (outcome.ok) job.resolve(outcome.value);
          else job.reject(outcome.error);
        }),
      (error: unknown) => jobs.forEach((job) => job.reject(asError(error))),
    );
    this.syncing = syncing;
    void syncing.then(() => {
      if (this.syncing !== syncing) return;
      this.syncing = null;
      // The units that waited for this fsync form the next group (once any hold has ended).
      if (this.held === null) this.flush();
    });
  }
}
