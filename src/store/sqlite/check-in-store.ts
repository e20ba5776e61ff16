import type { AnnulRefusal } from '@ticket-issuer/protocol';
import type { AnnulAttempt, AnnulResult, AnnulSeen } from '../annul.ts';
import type {
  ArrivalCount,
  CheckInAttempt,
  CheckInResult,
  CheckInDecider,
  PresenceDecider,
  RecentScanPage,
  ScanLogPage,
  Occupancy,
  Presence,
} from '../store.ts';
import {
  checkIn,
  getEntries,
  getPresence,
  withPresence,
  listScans,
  logRefusedAttempt,
  occupancy,
} from './check-ins.ts';
import { SqliteContext } from './context.ts';
import { arrivals } from './counters.ts';
import { listRecentScans } from './scan-log.ts';
import { GroupCommit } from './group-commit.ts';
import type { AutoExitEvent, AutoExitRun } from '../auto-exit.ts';
import * as annul from './annul.ts';
import * as autoExit from './auto-exit.ts';
import type { CheckInStore } from '../check-in-store.ts';

/** Check-ins, exits and undos, presence and occupancy, the automatic exit and the scan log. (Sqlite: see ../check-in-store.ts.) */
export class SqliteCheckInStore implements CheckInStore {
  /** One connection, whose group commit gathers concurrent transactions: many at once cost nothing more. */
  readonly uploadConcurrency = 64;
  constructor(private readonly b: { ctx: SqliteContext; groupCommit: GroupCommit }) {}

  /** Check-ins arriving together share one commit (see GroupCommit); each is still atomic on its own. */
  checkIn(attempt: CheckInAttempt, decide: CheckInDecider): Promise<CheckInResult> {
    return this.b.groupCommit.run(() => checkIn(this.b.ctx, attempt, decide));
  }

  logRefusedAttempt(attempt: CheckInAttempt, reason: string): Promise<void> {
    return logRefusedAttempt(this.b.ctx, attempt, reason);
  }

  checkOut(attempt: CheckInAttempt, decide: PresenceDecider): Promise<CheckInResult> {
    return this.b.groupCommit.run(() => withPresence(this.b.ctx, attempt, decide));
  }

  checkInWithPresence(attempt: CheckInAttempt, decide: PresenceDecider): Promise<CheckInResult> {
    return this.b.groupCommit.run(() => withPresence(this.b.ctx, attempt, decide));
  }

  getPresence(tid: string): Promise<Presence | null> {
    return getPresence(this.b.ctx, tid);
  }

  annulEntry(attempt: AnnulAttempt, judge: (seen: AnnulSeen) => 'annulled' | AnnulRefusal): Promise<AnnulResult> {
    return annul.annulEntry(this.b.ctx, attempt, judge);
  }

  getEntries(tid: string): Promise<string[]> {
    return getEntries(this.b.ctx, tid);
  }

  occupancy(eid: string): Promise<Occupancy> {
    return occupancy(this.b.ctx, eid);
  }

  listRecentScans(eid: string, limit: number, before: number | null): Promise<RecentScanPage> {
    return listRecentScans(this.b.ctx, eid, limit, before);
  }

  arrivals(eid: string): Promise<ArrivalCount[]> {
    return arrivals(this.b.ctx, eid);
  }

  listAutoExitEvents(now: string): Promise<AutoExitEvent[]> {
    return autoExit.listAutoExitEvents(this.b.ctx, now);
  }

  runAutoExit(run: AutoExitRun): Promise<number | null> {
    return autoExit.runAutoExit(this.b.ctx, run);
  }

  listScans(eid: string, limit: number, after: number | null): Promise<ScanLogPage> {
    return listScans(this.b.ctx, eid, limit, after);
  }
}
