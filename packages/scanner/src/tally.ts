/**
 * What an upload settled, counted and written down: the report's counts by outcome, the refusals kept
 * for the organizer (`refused.jsonl`), and the acknowledgements with the holders' moves, the entries
 * the answers counted and the annuls they answered, in batches (one durable write per batch, never
 * one per scan).
 */
import { CHECK_IN_OUTCOMES, type CheckInOutcome, RULE_REFUSALS } from '@ticket-issuer/protocol';
import { type IssuerHttpError, TURNED_AWAY_OFFLINE } from './errors.ts';
import { holderAfterAnnul, isAnnul, type QueuedItem, queueKeyOf } from './queued-annul.ts';
import { type AckDetails, deviceReport, type HolderMove, type QueuedScan, type ScanQueue } from './queue.ts';
import { STATE_FILES, type Storage } from './storage/storage.ts';
import type { Settled } from './sync.ts';

/**
 * What sync counts in `outcomes`: the spec's outcomes, and `turned_away_offline`; exits' statuses
 * (`checked_out`, `not_inside`) appear once an exit was uploaded, `annulled` once an annul was.
 */
export type SyncOutcome = CheckInOutcome | typeof TURNED_AWAY_OFFLINE | 'checked_out' | 'not_inside' | 'annulled';

/** Every count at zero. */
export function emptyOutcomes(): Record<SyncOutcome, number> {
  return Object.fromEntries([...CHECK_IN_OUTCOMES, TURNED_AWAY_OFFLINE].map((o) => [o, 0])) as Record<
    SyncOutcome,
    number
  >;
}

/** The counts of an upload. */
export interface UploadReport {
  uploaded: number;
  /** Every refusal for good (scans and annuls), kept in `refused.jsonl`. */
  refused: number;
  /** Of `refused`: scans this device had turned away too (the device and the issuer agree). */
  refusedAgreed: number;
  /**
   * Of `refused`: scans this device had let in (`admitted_offline`) that the issuer refuses: real
   * conflicts, listed in the issuer's conflicts report when its entry rules refused them.
   */
  conflicts: number;
  outcomes: Record<SyncOutcome, number>;
  /** Why the upload stopped early (issuer unreachable, or a ticket's scans kept failing), or null. */
  problem: Error | null;
  /** False when the issuer could not be reached at all: pulling the feed is pointless then. */
  reachable: boolean;
}

const ACK_BATCH = 500;

/** The line `refused.jsonl` keeps for the organizer: the scan (or annul) and the issuer's reason. */
export function refusedLine(scan: QueuedItem, error: IssuerHttpError, at: Date): string {
  return JSON.stringify({
    refused_at: at.toISOString(),
    http_status: error.status,
    error: { code: error.issuerCode, message: error.issuerMessage, details: error.details },
    scan,
  });
}

/** Acknowledgements and refusals written in batches: one fsync per batch, never one per scan. */
class AckBatcher {
  private keys: string[] = [];
  private refused: string[] = [];
  /** Each ticket's last move the answers made, written with the acknowledgements. */
  private moves = new Map<string, HolderMove>();
  /** The entries the answers counted, each with its scan's time. */
  private entries: { tid: string; at: string }[] = [];
  /** Admissions the answers made, and annuls they answered or refused. */
  private details: Details = noDetails();
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly queue: ScanQueue,
    private readonly storage: Storage,
  ) {}

  add(key: string, refusedLine?: string, move?: Moved, details: AckDetails = {}): Promise<void> {
    this.keys.push(key);
    if (refusedLine !== undefined) this.refused.push(refusedLine);
    // Each ticket's last move, in the order answered: an annul after its entry puts the holder back.
    if (move !== undefined) {
      this.moves.delete(move.tid);
      this.moves.set(move.tid, move.to);
    }
    if (move?.at !== undefined) this.entries.push({ tid: move.tid, at: move.at });
    this.details.admits.push(...(details.admits ?? []));
    this.details.annulled.push(...(details.annulled ?? []));
    this.details.annulRefused.push(...(details.annulRefused ?? []));
    return this.keys.length >= ACK_BATCH ? this.flush() : Promise.resolve();
  }

  /**
   * Writes what is pending: refusals first, so that no refused scan is acknowledged unrecorded; the
   * holders the answers let in or out with the acknowledgements, so that the device keeps knowing
   * them (as after an online scan) even if the feed pull that follows fails.
   */
  flush(): Promise<void> {
    const keys = this.keys;
    const refused = this.refused;
    const moves = [...this.moves];
    const entries = this.entries;
    const details = this.details;
    this.keys = [];
    this.refused = [];
    this.moves = new Map();
    this.entries = [];
    this.details = noDetails();
    const to = (direction: HolderMove) => moves.filter(([, move]) => move === direction).map(([tid]) => tid);
    this.chain = this.chain.then(async () => {
      await this.storage.appendLog(STATE_FILES.refused, refused);
      await this.queue.ack(keys, to('inside'), to('out'), entries, { ...details, unused: to('unused') });
    });
    return this.chain;
  }
}

type Details = {
  admits: QueuedScan[];
  annulled: { key: string; tid: string; at: string | null }[];
  annulRefused: string[];
};
const noDetails = (): Details => ({ admits: [], annulled: [], annulRefused: [] });

/** A holder's move an answer made; `at`: the entry it counted (the scan's time). */
type Moved = { tid: string; to: HolderMove; at?: string };

/** The holder's move an answer made: in on a `valid` entry, out on an exit that let them out. */
function moveOf(scan: QueuedScan, status: string): Moved | undefined {
  if (scan.direction === 'out')
    return status === 'checked_out' || status === 'revoked' ? { tid: scan.tid, to: 'out' } : undefined;
  return status === 'valid' ? { tid: scan.tid, to: 'inside', at: scan.scanned_at } : undefined;
}

/**
 * The holder's move a refusal of an admission this device made offline makes. The entry rules'
 * refusals (a 403 naming `not_valid_now`, `entry_limit_reached` or `too_soon`): the issuer keeps the
 * refusal, and still counts the entry and the holder inside, for they did go in. Any other refusal
 * for good (a scan over 48 hours old, another scope, a key reused): the issuer never counted it, so
 * the device takes it back too, and the holder is where they were before it.
 */
function refusedEntry(scan: QueuedScan, error: IssuerHttpError): Moved | undefined {
  if (!scan.admitted_offline || scan.direction === 'out') return undefined;
  const ruled = (RULE_REFUSALS as readonly unknown[]).includes(error.details.reason);
  return ruled ? { tid: scan.tid, to: 'inside', at: scan.scanned_at } : { tid: scan.tid, to: scan.before ?? 'unused' };
}

/** What an upload settled: the report's counts, and the acknowledgements and refusals it writes. */
export class Tally {
  readonly report: UploadReport = {
    uploaded: 0,
    refused: 0,
    refusedAgreed: 0,
    conflicts: 0,
    outcomes: emptyOutcomes(),
    problem: null,
    reachable: true,
  };
  private readonly batcher: AckBatcher;

  constructor(queue: ScanQueue, storage: Storage) {
    this.batcher = new AckBatcher(queue, storage);
  }

  /** Counts a settled scan or annul and acknowledges it (a refusal is kept in `refused.jsonl` first). */
  async record(scan: QueuedItem, settled: Settled): Promise<void> {
    if (isAnnul(scan)) {
      if (settled.kind === 'annulled') {
        this.count('annulled');
        const to = holderAfterAnnul(settled.answer.ticket.checked_in_at, scan.before);
        const annulled = [{ key: scan.idempotency_key, tid: scan.tid, at: scan.entry_at }];
        await this.batcher.add(queueKeyOf(scan), undefined, { tid: scan.tid, to }, { annulled });
      } else if (settled.kind === 'refused') {
        this.report.refused += 1;
        const line = refusedLine(scan, settled.error, new Date());
        await this.batcher.add(queueKeyOf(scan), line, undefined, { annulRefused: [scan.idempotency_key] });
      }
      return;
    }
    if (settled.kind === 'outcome') {
      const status = settled.answer.status;
      this.count(status);
      // An admission of the device's own verdict is one of its admits already (see JournalState).
      const admits = status === 'valid' && scan.direction !== 'out' && !scan.admitted_offline ? [scan] : [];
      await this.batcher.add(scan.idempotency_key, undefined, moveOf(scan, status), { admits });
    } else if (settled.kind === 'turned_away') {
      // A final answer: the issuer logged the scan and left the ticket unused, as the device said.
      this.count(TURNED_AWAY_OFFLINE);
      await this.batcher.add(scan.idempotency_key);
    } else if (settled.kind === 'refused') {
      this.report.refused += 1;
      // Who let the holder in decides what the refusal is: a conflict when this device did.
      const report = deviceReport(scan);
      if (report === 'admitted') this.report.conflicts += 1;
      else if (report === 'turned_away') this.report.refusedAgreed += 1;
      const line = refusedLine(scan, settled.error, new Date());
      await this.batcher.add(scan.idempotency_key, line, refusedEntry(scan, settled.error));
    }
  }

  /** Writes what is pending. */
  flush(): Promise<void> {
    return this.batcher.flush();
  }

  private count(status: SyncOutcome): void {
    this.report.uploaded += 1;
    this.report.outcomes[status] = (this.report.outcomes[status] ?? 0) + 1;
  }
}
