/** What the page shows of the device, and what the device knows of one ticket beside a verdict. */
import { clockOffMinutes, type CheckInPlace, type GateRule, type Scanner } from '@ticket-issuer/scanner';

/** What the page shows about the device. */
export interface DeviceState {
  enrolled: boolean;
  /** The last exchange with the issuer got an answer (and the browser says it is online). */
  online: boolean;
  queued: number;
  lastSyncAt: string | null;
  syncing: boolean;
  eventName: string | null;
  gate: string | null;
  scannerName: string | null;
  /** Why the last sync did not complete, in words for gate staff, or null. */
  problem: string | null;
  /** The issuer refused this device's key (401) on a sync or a scan: it must be enrolled again. */
  keyRejected: boolean;
  /**
   * The device has synced the changes feed and the gates at least once (enrolment tries to): until
   * then its offline verdicts know no revocation nor check-in but its own. False when not enrolled.
   */
  synced: boolean;
  /** The key may find holders by name (**Find by name**); false when not enrolled. */
  allowSearch: boolean;
  /**
   * How many whole minutes this phone's clock is off the issuer's, as the last sync measured it, when
   * that is over 2 minutes (scans are stamped by the corrected time all the same); else null.
   */
  clockOffMinutes: number | null;
}

/** Where the device's link to the issuer stands (see connection.ts). */
export interface LinkState {
  online: boolean;
  syncing: boolean;
  problem: string | null;
  keyRejected: boolean;
}

/** The device's state for the page: the scanner's (null when not enrolled) and the link's. */
export function deviceState(scanner: Scanner | null, link: LinkState): DeviceState {
  const identity = scanner?.identity;
  const offsetS = scanner?.status().clock_offset_s;
  return {
    enrolled: scanner !== null,
    online: link.online,
    queued: scanner?.queue.size ?? 0,
    lastSyncAt: scanner?.knowledge.lastSyncAt ?? null,
    syncing: link.syncing,
    eventName: identity?.event_name ?? null,
    gate: identity?.gate_id ?? null,
    scannerName: identity?.scanner_name ?? null,
    problem: link.problem,
    keyRejected: link.keyRejected,
    synced: scanner?.synced ?? false,
    allowSearch: scanner?.allowSearch ?? false,
    clockOffMinutes: clockOffMinutes(offsetS === null || offsetS === undefined ? null : offsetS * 1000),
  };
}

/** What the device knows of a ticket, for the verdict screen. */
export interface TicketFacts {
  /** Where its changes feed last saw it let in. */
  place: CheckInPlace | null;
  /** This device let it in. */
  admittedHere: boolean;
  /** It was let in at all (the feed, this device's admits and moves). */
  wasInside: boolean;
  gates: GateRule[];
}

/** What the scanner (null when not enrolled) knows of the ticket `tid` (null: no ticket). */
export function ticketFacts(scanner: Scanner | null, tid: string | null): TicketFacts {
  const gates = scanner?.gates ?? [];
  if (!scanner || tid === null) return { place: null, admittedHere: false, wasInside: false, gates };
  const { knowledge, queue } = scanner;
  const admittedHere = queue.admitted.has(tid);
  // A move back to unused (an entry undone) says the holder was not let in.
  const moved = queue.moves.get(tid)?.to;
  const wasInside =
    admittedHere ||
    (moved !== undefined && moved !== 'unused') ||
    knowledge.checkedIn.has(tid) ||
    knowledge.out.has(tid);
  return { place: knowledge.checkIns.get(tid) ?? null, admittedHere, wasInside, gates };
}
