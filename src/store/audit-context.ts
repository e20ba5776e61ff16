import { AsyncLocalStorage } from 'node:async_hooks';
import type { OwnedResource } from './owning-event.ts';
import type { AuditRecord } from './people-records.ts';

/**
 * The audit entry of an admin write, carried beside the request's work until the store writes it.
 * The HTTP layer opens it around the route's handler (`withAudit`); the store's transaction helpers
 * (SqliteContext's `tx` and writes outside one, PostgreSQL's transactions and writes on the pool)
 * insert it in the first transaction that changes rows, inside that transaction, and only then: a
 * write that changes nothing, or fails and rolls back, leaves no entry. One entry per request.
 */
export interface PendingAudit {
  record: AuditRecord;
  /**
   * Where the store finds the entry's event when the path named none (a ticket's, an enrolment token's,
   * a scanner key's): read in the same transaction, so it costs no round trip of its own.
   */
  eventOf: { resource: OwnedResource; id: string } | null;
  /** open: waiting for a change; written: recorded with its change; closed: the request ended without one. */
  state: 'open' | 'written' | 'closed';
}

const storage = new AsyncLocalStorage<PendingAudit>();

/** Admin writes whose work has not settled yet. */
let running = 0;

/**
 * Runs an admin write's work with its pending entry. Once the work settles the entry is closed, so
 * that nothing started by the request and still running afterwards (a timer, a worker it woke) can
 * write it.
 *
 * While no admin write runs, the storage is disabled: on Node 20, an enabled AsyncLocalStorage keeps
 * async hooks on for every promise and callback the process makes (a check-in's among them), which
 * cost several times a promise's own price. Nothing needs the storage meanwhile: every entry still
 * reachable is closed, and `pendingAudit` would answer null for it anyway. The next write's `run`
 * enables it again.
 */
export async function withAudit<T>(pending: PendingAudit, work: () => Promise<T>): Promise<T> {
  running += 1;
  try {
    return await storage.run(pending, work);
  } finally {
    if (pending.state === 'open') pending.state = 'closed';
    running -= 1;
    if (running === 0) storage.disable();
  }
}

/** The entry a write of the current request must record, or null (none pending, or already written). */
export function pendingAudit(): PendingAudit | null {
  const pending = storage.getStore();
  return pending?.state === 'open' ? pending : null;
}

/** Marks the entry written: its transaction inserted it (later transactions of the request add none). */
export function auditWritten(pending: PendingAudit): void {
  pending.state = 'written';
}

/**
 * What the work learns on the way and the entry should say: the id of what it creates (the path could
 * not name it), its event, a detail. Does nothing outside an admin write.
 */
export function noteAudit(note: { target?: string; eid?: string | null; details?: Record<string, unknown> }): void {
  const pending = pendingAudit();
  if (pending === null) return;
  const { record } = pending;
  if (note.target !== undefined) record.target = note.target;
  if (note.eid !== undefined && note.eid !== null) {
    record.eid = note.eid;
    pending.eventOf = null;
  }
  if (note.details) record.details = { ...record.details, ...note.details };
}

/**
 * Names the entry's actor and target once the work has found who acts: accepting an invitation, whose
 * person is known only to the transaction that takes it. Does nothing outside an entry.
 */
export function noteAuditActor(person: { user_id: string; name: string }): void {
  const pending = pendingAudit();
  if (pending === null) return;
  pending.record.user_id = person.user_id;
  pending.record.actor_name = person.name;
  pending.record.target = person.user_id;
}

/** Runs `work` outside any request's entry: background work (a delivery worker woken by a request) records none. */
export function outsideAudit<T>(work: () => T): T {
  return storage.exit(work);
}
