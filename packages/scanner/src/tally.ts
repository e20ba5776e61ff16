/**
 * What an upload settled, counted and written down: the report's counts by outcome, the refusals kept
 * for the organizer (`refused.jsonl`), and the acknowledgements with the holders' moves and the entries
 * the answers counted, in batches (one durable write per batch, never one per scan).
 */
import { CHECK_IN_OUTCOMES, type CheckInOutcome, RULE_REFUSALS } from '@ticket-issuer/protocol';
import { type IssuerHttpError, TURNED_AWAY_OFFLINE } from './errors.ts';
import type { HolderMove, QueuedScan, ScanQueue } from './queue.ts';
import { STATE_FILES, type Storage } from './storage/storage.ts';
import type { Settled } from './sync.ts';

/**
 * What sync counts in `outcomes`: the spec's outcomes, and `turned_away_offline`; exits' statuses
 * (`checked_out`, `not_inside`) appear once an exit was uploaded.
 */
export type SyncOutcome = CheckInOutcome | typeof TURNED_AWAY_OFFLINE | 'checked_out' | 'not_inside';

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
  refused: number;
  outcomes: Record<SyncOutcome, number>;
  /** Why the upload stopped early (issuer unreachable, or a ticket's scans kept failing), or null. */
  problem: Error | null;
  /** False when the issuer could not be reached at all: pulling the feed is pointless then. */
  reachable: boolean;
}

const ACK_BATCH = 500;

/** The line `refused.jsonl` keeps for the organizer: the scan and the issuer's reason. */
export function refusedLine(scan: QueuedScan, error: IssuerHttpError, at: Date): string {
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
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly queue: ScanQueue,
    private readonly storage: Storage,
  ) {}

  add(key: string, refusedLine?: string, move?: Moved): Promise<void> {
    this.keys.push(key);
    if (refusedLine !== undefined) this.refused.push(refusedLine);
    if (move !== undefined) this.moves.set(move.tid, move.to);
    if (move?.at !== undefined) this.entries.push({ tid: move.tid, at: move.at });
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
    this.keys = [];
    this.refused = [];
    this.moves = new Map();
    this.entries = [];
    const to = (direction: HolderMove) => moves.filter(([, move]) => move === direction).map(([tid]) => tid);
    this.chain = this.chain.then(async () => {
      await this.storage.appendLog(STATE_FILES.refused, refused);
      await this.queue.ack(keys, to('inside'), to('out'), entries);
    });
    return this.chain;
  }
}

/** A holder's move an answer made; `at`: the entry it counted (the scan's time). */
type Moved = { tid: string; to: HolderMove; at?: string };

/** The holder's move an answer made: in on a `valid` entry, out on an exit that let them out. */
function moveOf(scan: QueuedScan, status: string): Moved | undefined {
  if (scan.direction === 'out')
    return status === 'checked_out' || status === 'revoked' ? { tid: scan.tid, to: 'out' } : undefined;
  return status === 'valid' ? { tid: scan.tid, to: 'inside', at: scan.scanned_at } : undefined;
}

/**
 * An admission this device made offline that the entry rules refuse now (a 403 naming `not_valid_now`,
 * `entry_limit_reached` or `too_soon`): the issuer keeps the refusal, and still counts the entry and
 * the holder inside, for they did go in.
 */
function refusedEntry(scan: QueuedScan, error: IssuerHttpError): Moved | undefined {
  const ruled = (RULE_REFUSALS as readonly unknown[]).includes(error.details.reason);
  if (!ruled || !scan.admitted_offline || scan.direction === 'out') return undefined;
  return { tid: scan.tid, to: 'inside', at: scan.scanned_at };
}

/** What an upload settled: the report's counts, and the acknowledgements and refusals it writes. */
export class Tally {
  readonly report: UploadReport = {
    uploaded: 0,
    refused: 0,
    outcomes: emptyOutcomes(),
    problem: null,
    reachable: true,
  };
  private readonly batcher: AckBatcher;

  constructor(queue: ScanQueue, storage: Storage) {
    this.batcher = new AckBatcher(queue, storage);
  }

  /** Counts a settled scan and acknowledges it (a refusal is kept in `refused.jsonl` first). */
  async record(scan: QueuedScan, settled: Settled): Promise<void> {
    if (settled.kind === 'outcome') {
      this.report.uploaded += 1;
      const status = settled.answer.status;
      this.report.outcomes[status] = (this.report.outcomes[status] ?? 0) + 1;
      await this.batcher.add(scan.idempotency_key, undefined, moveOf(scan, status));
    } else if (settled.kind === 'turned_away') {
      // A final answer: the issuer logged the scan and left the ticket unused, as the device said.
      this.report.uploaded += 1;
      this.report.outcomes[TURNED_AWAY_OFFLINE] += 1;
      await this.batcher.add(scan.idempotency_key);
    } else {
      this.report.refused += 1;
      const line = refusedLine(scan, settled.error, new Date());
      await this.batcher.add(scan.idempotency_key, line, refusedEntry(scan, settled.error));
    }
  }

  /** Writes what is pending. */
  flush(): Promise<void> {
    return this.batcher.flush();
  }
}
