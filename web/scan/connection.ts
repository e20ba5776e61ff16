/**
 * The device's link to the issuer: whether it answers, why the last sync did not complete, whether it
 * refused this device's key, and the automatic sync (the queue up, then the changes feed down).
 */
import {
  isKeyRejected,
  isTransient,
  ScannerError,
  type IssuerContact,
  type RetryPolicy,
  type Scanner,
  type SyncResult,
} from '@ticket-issuer/scanner';
import type { LinkState } from './device-state.ts';

/** Sync tries give up quickly: the loop below tries again soon enough. */
export const SYNC_POLICY: RetryPolicy = {
  initialBackoffMs: 250,
  maxAttempts: 2,
  budgetMs: 1500,
  maxRetryAfterMs: 10_000,
  rateLimitBudgetMs: 20_000,
};
/** Between syncs while the issuer answers: the changes feed is pulled this often. */
export const PULL_EVERY_MS = 15_000;
/** Retries while it does not: at most this far apart, so the queue syncs within 10 s of its return. */
const RETRY_MAX_MS = 4000;

export class Connection {
  private reachable = navigator.onLine;
  private syncing: Promise<SyncResult | null> | null = null;
  private timer: number | undefined;
  private backoffMs = 0;
  private problem: string | null = null;
  private keyRejected = false;

  /** `scanner`: the device's scanner now (null when not enrolled); `changed`: the state changed. */
  constructor(
    private readonly scanner: () => Scanner | null,
    private readonly changed: () => void,
  ) {
    addEventListener('online', () => this.syncSoon(0));
    addEventListener('offline', () => {
      this.reachable = false;
      this.changed();
    });
  }

  /** What the page shows of the link. */
  state(): LinkState {
    const { problem, keyRejected } = this;
    return { online: !this.offline, syncing: this.syncing !== null, problem, keyRejected };
  }

  /** The issuer is not to be asked: the last exchange got no answer, or the browser is offline. */
  get offline(): boolean {
    return !this.reachable || !navigator.onLine;
  }

  /**
   * What came of asking the issuer: only a failed request says it is unreachable; any answer (a
   * refusal included) says it is there; `not_asked` (or null) says nothing.
   */
  contact(contact: IssuerContact | null): void {
    if (contact === 'failed') this.reachable = false;
    else if (contact === 'answered') this.reachable = true;
  }

  /** A request that failed: a refused key stops the device; a failure without an answer marks the issuer away. */
  failed(error: unknown): void {
    if (isKeyRejected(error)) this.rejectKey();
    else if (isTransient(error)) this.reachable = false;
  }

  /** A fresh enrolment: the issuer answered it, and the old key's troubles are gone. */
  enrolled(): void {
    this.keyRejected = false;
    this.problem = null;
    this.reachable = true;
  }

  /** Forgets the last problem and a refused key (the device was forgotten). */
  reset(): void {
    this.problem = null;
    this.keyRejected = false;
  }

  /** After a scan, an undo or a check-in: what waits is sent soon (sooner while the issuer answers). */
  queueChanged(): void {
    if ((this.scanner()?.queue.size ?? 0) > 0) this.syncSoon(this.reachable ? 500 : RETRY_MAX_MS);
  }

  /** After an enrolment: the next pull in due time when it synced without trouble, else at once. */
  startAfterEnrolment(): void {
    if (this.scanner()) this.syncSoon(this.scanner()!.synced && this.problem === null ? PULL_EVERY_MS : 0);
  }

  /** Syncs now (button **Sync now**, and the loop): uploads the queue, then pulls the changes feed. */
  sync(): Promise<SyncResult | null> {
    if (this.syncing) return this.syncing;
    window.clearTimeout(this.timer);
    this.syncing = this.runSync().finally(() => {
      this.syncing = null;
      this.changed();
    });
    this.changed();
    return this.syncing;
  }

  /** Stops the loop and waits for a sync under way (the device is being forgotten). */
  async stop(): Promise<void> {
    window.clearTimeout(this.timer);
    await this.syncing;
  }

  /** Syncs after `delayMs`, unless not enrolled or the key was refused. */
  syncSoon(delayMs: number): void {
    if (!this.scanner() || this.keyRejected) return;
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => void this.sync(), delayMs);
  }

  /**
   * What a sync that did not complete says: a rejected key (401) at once; the issuer unreachable only
   * when the failure was one (no answer, a 5xx); otherwise the issuer answers and the problem is shown.
   */
  syncFailed(error: unknown): void {
    if (isKeyRejected(error)) {
      this.rejectKey();
      return;
    }
    if (isTransient(error)) this.reachable = false;
    this.problem = describe(error);
  }

  private async runSync(): Promise<SyncResult | null> {
    const scanner = this.scanner();
    if (!scanner) return null;
    let result: SyncResult | null = null;
    try {
      result = await scanner.sync();
      this.reachable = true;
      this.problem = null;
      if (result.problem !== null) this.syncFailed(result.problem);
    } catch (error) {
      this.syncFailed(error);
    }
    if (this.keyRejected) return result;
    if (this.reachable && (result?.remaining ?? 0) === 0) {
      this.backoffMs = 0;
      this.syncSoon(PULL_EVERY_MS);
    } else {
      this.backoffMs = Math.min(RETRY_MAX_MS, this.backoffMs === 0 ? 1000 : this.backoffMs * 2);
      this.syncSoon(this.backoffMs);
    }
    return result;
  }

  private rejectKey(): void {
    this.keyRejected = true;
    this.problem = 'This device’s key is revoked or expired: enrol it again with a new setup code.';
    window.clearTimeout(this.timer);
  }
}

/** A sync's failure in words for gate staff. */
function describe(error: unknown): string {
  if (error instanceof ScannerError && isTransient(error)) return 'The issuer does not answer: scans wait here.';
  return error instanceof Error ? error.message : String(error);
}
