/**
 * This phone as a scanner: its IndexedDB state, the scanner package's Scanner over it (the same
 * offline rules, queue and sync as the CLI), whether the issuer answers, and the automatic sync.
 */
import {
  clockOffMinutes,
  enroll,
  fetchTransport,
  isKeyRejected,
  isTransient,
  parseSetupUri,
  Scanner,
  ScannerError,
  type AnnulResult,
  type CheckInPlace,
  type GateRule,
  type EnrollResult,
  type RetryPolicy,
  type FoundHolder,
  type GroupAnswer,
  type HolderJudgement,
  type NamedHolder,
  type ScanResult,
  type SyncResult,
} from '@ticket-issuer/scanner';
import { IndexedDbStorage } from '@ticket-issuer/scanner/indexeddb';
import { keepStorage } from './keep-storage.ts';

/** Sync tries give up quickly: the loop below tries again soon enough. */
const SYNC_POLICY: RetryPolicy = {
  initialBackoffMs: 250,
  maxAttempts: 2,
  budgetMs: 1500,
  maxRetryAfterMs: 10_000,
  rateLimitBudgetMs: 20_000,
};
/** An online scan waits this long for the issuer, then the device decides (a verdict within 3 s). */
const ONLINE_WAIT_MS = 2500;
/** Between syncs while the issuer answers: the changes feed is pulled this often. */
const PULL_EVERY_MS = 15_000;
/** Retries while it does not: at most this far apart, so the queue syncs within 10 s of its return. */
const RETRY_MAX_MS = 4000;

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

const transport = fetchTransport();

export class Device {
  private scanner: Scanner | null = null;
  private reachable = navigator.onLine;
  private syncing: Promise<SyncResult | null> | null = null;
  private timer: number | undefined;
  private backoffMs = 0;
  private problem: string | null = null;
  private keyRejected = false;

  private constructor(
    private storage: IndexedDbStorage,
    private readonly changed: (state: DeviceState) => void,
  ) {}

  /** Opens this device's state (enrolled or not) and starts syncing when enrolled. */
  static async open(changed: (state: DeviceState) => void): Promise<Device> {
    const device = new Device(await IndexedDbStorage.open(), changed);
    await device.openScanner();
    addEventListener('online', () => device.syncSoon(0));
    addEventListener('offline', () => {
      device.reachable = false;
      device.notify();
    });
    if (device.scanner) {
      keepStorage();
      device.syncSoon(0);
    }
    device.notify();
    return device;
  }

  get enrolled(): boolean {
    return this.scanner !== null;
  }

  get queued(): number {
    return this.scanner?.queue.size ?? 0;
  }

  /**
   * What the device knows of a ticket, for the verdict screen: where its changes feed last saw it let
   * in, whether this device let it in, and whether it was let in at all (feed, own admits and moves).
   */
  ticketFacts(tid: string | null): {
    place: CheckInPlace | null;
    admittedHere: boolean;
    wasInside: boolean;
    gates: GateRule[];
  } {
    const scanner = this.scanner;
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

  /** The eid of the event this device is enrolled for, or null. */
  get eventId(): string | null {
    return this.scanner?.identity.eid ?? null;
  }

  /** The event this device is enrolled for, for the question before a replacement. */
  get eventName(): string | null {
    return this.scanner?.identity.event_name ?? null;
  }

  state(): DeviceState {
    const identity = this.scanner?.identity;
    const offsetS = this.scanner?.status().clock_offset_s;
    return {
      enrolled: this.scanner !== null,
      online: this.reachable && navigator.onLine,
      queued: this.queued,
      lastSyncAt: this.scanner?.knowledge.lastSyncAt ?? null,
      syncing: this.syncing !== null,
      eventName: identity?.event_name ?? null,
      gate: identity?.gate_id ?? null,
      scannerName: identity?.scanner_name ?? null,
      problem: this.problem,
      keyRejected: this.keyRejected,
      synced: this.scanner?.synced ?? false,
      allowSearch: this.scanner?.allowSearch ?? false,
      clockOffMinutes: clockOffMinutes(offsetS === null || offsetS === undefined ? null : offsetS * 1000),
    };
  }

  /**
   * Enrols with a setup URI whose issuer is this page's own origin (the page talks to nobody else),
   * keeping the scanner id, name (unless `name` is given) and queue as the scanner package does on
   * re-enrolment.
   */
  async enrol(setupUri: string, name?: string): Promise<EnrollResult> {
    const setup = parseSetupUri(setupUri);
    if (new URL(setup.iss).origin !== location.origin) {
      throw new ScannerError(
        'INVALID_SETUP_URI',
        `this setup code is for the issuer at ${setup.iss}: open the scanner from ${setup.iss}/scan/`,
      );
    }
    await this.closeScanner();
    try {
      const result = await enroll(this.storage, setupUri, {
        transport,
        // A name typed at enrolment; none on a first enrolment (empty), and the issuer names the scanner.
        ...(name ? { name } : {}),
        defaultName: '',
        platform: `web-scanner/0.1 (${navigator.userAgent.slice(0, 80)})`,
        retryPolicy: SYNC_POLICY,
        requestTimeoutMs: 5000,
      });
      this.keyRejected = false;
      this.problem = null;
      this.reachable = true;
      keepStorage();
      // Enrolment ended with a first sync; one that failed leaves the enrolment, and says why.
      if (result.sync_problem !== null) this.syncFailed(result.sync_problem);
      return result;
    } finally {
      await this.openScanner();
      this.notify();
      // Synced just now: the next pull in due time; else (or never enrolled) at once.
      if (this.scanner) this.syncSoon(this.scanner.synced && this.problem === null ? PULL_EVERY_MS : 0);
    }
  }

  /**
   * Scans one code at the entry or the exit: asked of the issuer while it answers (2.5 s at most),
   * else decided here at once. Only a failed request makes the device decide alone from then on.
   * The scan is durably stored in IndexedDB before this resolves, whichever way it was decided.
   */
  async scan(token: string, mode: 'entry' | 'exit' = 'entry'): Promise<ScanResult> {
    const scanner = this.requireScanner();
    const offline = !this.reachable || !navigator.onLine;
    let result: ScanResult;
    try {
      const scans = mode === 'exit' ? scanner.exit([token], { offline }) : scanner.scan([token], { offline });
      [result] = (await scans) as [ScanResult];
    } catch (error) {
      if (isKeyRejected(error)) this.rejectKey();
      throw error;
    }
    // Only a request that failed says the issuer is unreachable: input that is not a ticket asked
    // nothing, and any answer (a refusal included) says it is there.
    if (result.issuer_contact === 'failed') this.reachable = false;
    else if (result.issuer_contact === 'answered') this.reachable = true;
    this.notify();
    if (scanner.queue.size > 0) this.syncSoon(this.reachable ? 500 : RETRY_MAX_MS);
    return result;
  }

  /**
   * Undoes the entry this device made under `key` (**Undo**): asked of the issuer while it answers,
   * else judged here and queued after the scan it undoes (the scanner package's annul).
   */
  async annul(key: string): Promise<AnnulResult> {
    const scanner = this.requireScanner();
    const offline = !this.reachable || !navigator.onLine;
    let result: AnnulResult;
    try {
      result = await scanner.annul(key, { offline });
    } catch (error) {
      if (isKeyRejected(error)) this.rejectKey();
      throw error;
    }
    // Asked of the issuer, an undo left queued got no answer; any answer says the issuer is there.
    if (result.source === 'issuer') this.reachable = true;
    else if (result.source === 'queued' && !offline) this.reachable = false;
    this.notify();
    if (scanner.queue.size > 0) this.syncSoon(this.reachable ? 500 : RETRY_MAX_MS);
    return result;
  }

  /** A ticket's group, as the issuer answers it (online only). */
  group(tid: string): Promise<GroupAnswer> {
    return this.requireScanner().group(tid);
  }

  /** Checks in the chosen members of a group, one manual check-in each, in turn; one verdict each. */
  async checkInGroup(members: FoundHolder[]): Promise<ScanResult[]> {
    const results: ScanResult[] = [];
    for (const member of members) results.push(await this.checkInManual(member));
    return results;
  }

  /** Whether this device's key may find holders by name (its enrolment's `scope.allow_search`). */
  get allowSearch(): boolean {
    return this.scanner?.allowSearch ?? false;
  }

  /** How the rules would answer a holder known by name now (null when not enrolled). */
  judgeHolder(holder: NamedHolder): HolderJudgement | null {
    return this.scanner?.judgeHolder(holder) ?? null;
  }

  /** **Find by name**: the issuer's holders whose name holds `q` (online only; a failed request says it is away). */
  async findHolders(q: string): Promise<FoundHolder[]> {
    const scanner = this.requireScanner();
    try {
      const found = await scanner.search(q);
      this.reachable = true;
      return found;
    } catch (error) {
      if (isKeyRejected(error)) this.rejectKey();
      else if (isTransient(error)) this.reachable = false;
      throw error;
    } finally {
      this.notify();
    }
  }

  /**
   * Checks in a holder chosen from **Find by name** (`manual`), stored like a scan before it resolves;
   * the issuer's answer is the verdict, and without one nobody is let in (the package's `no_answer`).
   */
  async checkInManual(holder: FoundHolder): Promise<ScanResult> {
    const scanner = this.requireScanner();
    let result: ScanResult;
    try {
      result = await scanner.checkInManual(holder);
    } catch (error) {
      if (isKeyRejected(error)) this.rejectKey();
      throw error;
    }
    this.reachable = result.issuer_contact !== 'failed';
    this.notify();
    if (scanner.queue.size > 0) this.syncSoon(this.reachable ? 500 : RETRY_MAX_MS);
    return result;
  }

  /** Syncs now (button **Sync now**, and the loop): uploads the queue, then pulls the changes feed. */
  sync(): Promise<SyncResult | null> {
    if (this.syncing) return this.syncing;
    window.clearTimeout(this.timer);
    this.syncing = this.runSync().finally(() => {
      this.syncing = null;
      this.notify();
    });
    this.notify();
    return this.syncing;
  }

  /** Forgets the enrolment, the key and everything else, unless scans still wait for the issuer. */
  async forget(): Promise<void> {
    if (this.queued > 0) throw new Error(`${this.queued} scans have not reached the issuer yet: sync first.`);
    window.clearTimeout(this.timer);
    await this.syncing;
    await this.closeScanner();
    await this.storage.forget();
    this.storage = await IndexedDbStorage.open();
    this.problem = null;
    this.keyRejected = false;
    this.notify();
  }

  private async runSync(): Promise<SyncResult | null> {
    const scanner = this.scanner;
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

  /**
   * What a sync that did not complete says: a rejected key (401) at once; the issuer unreachable only
   * when the failure was one (no answer, a 5xx); otherwise the issuer answers and the problem is shown.
   */
  private syncFailed(error: unknown): void {
    if (isKeyRejected(error)) {
      this.rejectKey();
      return;
    }
    if (isTransient(error)) this.reachable = false;
    this.problem = this.describe(error);
  }

  private describe(error: unknown): string {
    if (error instanceof ScannerError && isTransient(error)) return 'The issuer does not answer: scans wait here.';
    return error instanceof Error ? error.message : String(error);
  }

  private rejectKey(): void {
    this.keyRejected = true;
    this.problem = 'This device’s key is revoked or expired: enrol it again with a new setup code.';
    window.clearTimeout(this.timer);
  }

  private syncSoon(delayMs: number): void {
    if (!this.scanner || this.keyRejected) return;
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => void this.sync(), delayMs);
  }

  private requireScanner(): Scanner {
    if (!this.scanner) throw new ScannerError('NOT_ENROLLED', 'this device is not enrolled');
    return this.scanner;
  }

  private async openScanner(): Promise<void> {
    try {
      this.scanner = await Scanner.open(this.storage, {
        transport,
        onlineTimeoutMs: ONLINE_WAIT_MS,
        requestTimeoutMs: 5000,
        retryPolicy: SYNC_POLICY,
      });
    } catch (error) {
      if (error instanceof ScannerError && error.code === 'NOT_ENROLLED') this.scanner = null;
      else throw error;
    }
  }

  private async closeScanner(): Promise<void> {
    const scanner = this.scanner;
    this.scanner = null;
    await scanner?.close();
  }

  private notify(): void {
    this.changed(this.state());
  }
}
