import type { AnnulRefusal } from '@ticket-issuer/protocol';
import type { AnnulAttempt, AnnulResult, AnnulSeen } from '../annul.ts';
import type {
  Occupancy,
  Presence,
  ArrivalCount,
  CheckInAttempt,
  CheckInResult,
  CheckInDecider,
  PresenceDecider,
  RecentScanPage,
  ScanLogPage,
} from '../store.ts';
import type { CheckInBatcher } from './check-in-batch.ts';
import type { AutoExitEvent, AutoExitRun } from '../auto-exit.ts';
import type { Tx } from './queries.ts';
import * as annul from './annul.ts';
import * as autoExit from './auto-exit.ts';
import * as checkIns from './check-ins.ts';
import * as counters from './counters.ts';
import * as scanLog from './scan-log.ts';
import type pg from 'pg';
import type { CheckInStore } from '../check-in-store.ts';

/** Check-ins, exits and undos, presence and occupancy, the automatic exit and the scan log. (PostgreSQL: see ../check-in-store.ts.) */
export class PostgresCheckInStore implements CheckInStore {
  /**
   * Check-ins and exits join the check-in batches (at most two transactions at once whatever the number
   * waiting): an upload may hand them all over at once.
   */
  readonly uploadConcurrency = Number.POSITIVE_INFINITY;
  constructor(private readonly b: { pool: pg.Pool; tx: Tx; batcher: CheckInBatcher }) {}

  /**
   * Applies one check-in attempt atomically; same-key attempts and same-ticket attempts are
   * serialized across processes, and every attempt is appended to the scan log. Attempts arriving
   * together share one transaction (see CheckInBatcher); each is still decided on its own.
   */
  checkIn(attempt: CheckInAttempt, decide: CheckInDecider): Promise<CheckInResult> {
    return this.b.batcher.run(attempt, (ticket, _presence, gate, entries) => decide(ticket, gate, entries));
  }

  logRefusedAttempt(attempt: CheckInAttempt, reason: string): Promise<void> {
    return checkIns.logRefusedAttempt(this.b.pool, attempt, reason);
  }

  /** An exit, in the check-in batches as every check-in (see CheckInBatcher). */
  checkOut(attempt: CheckInAttempt, decide: PresenceDecider): Promise<CheckInResult> {
    return this.b.batcher.run(attempt, decide);
  }

  /** An entry decided on the holder's presence, in the check-in batches as every check-in. */
  checkInWithPresence(attempt: CheckInAttempt, decide: PresenceDecider): Promise<CheckInResult> {
    return this.b.batcher.run(attempt, decide);
  }

  getPresence(tid: string): Promise<Presence | null> {
    return checkIns.getPresence(this.b.pool, tid);
  }

  annulEntry(attempt: AnnulAttempt, judge: (seen: AnnulSeen) => 'annulled' | AnnulRefusal): Promise<AnnulResult> {
    return annul.annulEntry(this.b.tx, attempt, judge);
  }

  getEntries(tid: string): Promise<string[]> {
    return checkIns.getEntries(this.b.pool, tid);
  }

  occupancy(eid: string): Promise<Occupancy> {
    return checkIns.occupancy(this.b.pool, eid);
  }

  listRecentScans(eid: string, limit: number, before: number | null): Promise<RecentScanPage> {
    return scanLog.listRecentScans(this.b.pool, eid, limit, before);
  }

  arrivals(eid: string): Promise<ArrivalCount[]> {
    return counters.arrivals(this.b.pool, eid);
  }

  listAutoExitEvents(now: string): Promise<AutoExitEvent[]> {
    return autoExit.listAutoExitEvents(this.b.pool, now);
  }

  runAutoExit(run: AutoExitRun): Promise<number | null> {
    return autoExit.runAutoExit(this.b.tx, run);
  }

  listScans(eid: string, limit: number, after: number | null): Promise<ScanLogPage> {
    return checkIns.listScans(this.b.pool, eid, limit, after);
  }
}
