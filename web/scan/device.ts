/**
 * This phone as a scanner: its IndexedDB state, the scanner package's Scanner over it (the same
 * offline rules, queue and sync as the CLI), and its link to the issuer (connection.ts).
 */
import {
  fetchTransport,
  Scanner,
  ScannerError,
  type AnnulResult,
  type EnrollResult,
  type FoundHolder,
  type FoundHolders,
  type GroupAnswer,
  type HolderJudgement,
  type NamedHolder,
  type ScanResult,
  type SyncResult,
} from '@ticket-issuer/scanner';
import { IndexedDbStorage } from '@ticket-issuer/scanner/indexeddb';
import { Connection, SYNC_POLICY } from './connection.ts';
import { deviceState, ticketFacts, type DeviceState, type TicketFacts } from './device-state.ts';
import { enrolHere, ownIssuerOnly } from './enrolment.ts';
import { Exchange } from './exchange.ts';
import { keepStorage } from './keep-storage.ts';

export type { DeviceState, TicketFacts } from './device-state.ts';

/** An online scan waits this long for the issuer, then the device decides (a verdict within 3 s). */
const ONLINE_WAIT_MS = 2500;

const transport = fetchTransport();

export class Device {
  private scanner: Scanner | null = null;
  private readonly link = new Connection(
    () => this.scanner,
    () => this.notify(),
  );
  private readonly exchange = new Exchange(
    () => this.requireScanner(),
    this.link,
    () => this.notify(),
  );

  private constructor(
    private storage: IndexedDbStorage,
    private readonly changed: (state: DeviceState) => void,
  ) {}

  /** Opens this device's state (enrolled or not) and starts syncing when enrolled. */
  static async open(changed: (state: DeviceState) => void): Promise<Device> {
    const device = new Device(await IndexedDbStorage.open(), changed);
    await device.openScanner();
    if (device.scanner) {
      keepStorage();
      device.link.syncSoon(0);
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

  /** What the device knows of a ticket, for the verdict screen (see `ticketFacts`). */
  ticketFacts(tid: string | null): TicketFacts {
    return ticketFacts(this.scanner, tid);
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
    return deviceState(this.scanner, this.link.state());
  }

  /**
   * Enrols with a setup URI of this page's own issuer (see `enrolHere`), then syncs: the scanner id,
   * name (unless `name` is given) and queue are kept on re-enrolment.
   */
  async enrol(setupUri: string, name?: string): Promise<EnrollResult> {
    // Checked before the scanner closes: a setup code of another issuer leaves the device as it was.
    ownIssuerOnly(setupUri);
    await this.closeScanner();
    try {
      const result = await enrolHere(this.storage, transport, setupUri, name);
      this.link.enrolled();
      keepStorage();
      // Enrolment ended with a first sync; one that failed leaves the enrolment, and says why.
      if (result.sync_problem !== null) this.link.syncFailed(result.sync_problem);
      return result;
    } finally {
      await this.openScanner();
      this.notify();
      this.link.startAfterEnrolment();
    }
  }

  /**
   * Scans one code at the entry or the exit: asked of the issuer while it answers (2.5 s at most),
   * else decided here at once. Only a failed request makes the device decide alone from then on.
   * The scan is durably stored in IndexedDB before this resolves, whichever way it was decided.
   */
  scan(token: string, mode: 'entry' | 'exit' = 'entry'): Promise<ScanResult> {
    return this.exchange.act(
      async (scanner, offline) => {
        const scans = mode === 'exit' ? scanner.exit([token], { offline }) : scanner.scan([token], { offline });
        return ((await scans) as [ScanResult])[0];
      },
      (result) => result.issuer_contact,
    );
  }

  /**
   * Undoes the entry this device made under `key` (**Undo**): asked of the issuer while it answers,
   * else judged here and queued after the scan it undoes (the scanner package's annul).
   */
  annul(key: string): Promise<AnnulResult> {
    return this.exchange.act(
      (scanner, offline) => scanner.annul(key, { offline }),
      // Asked of the issuer, an undo left queued got no answer; any answer says the issuer is there.
      (result, offline) =>
        result.source === 'issuer' ? 'answered' : result.source === 'queued' && !offline ? 'failed' : null,
    );
  }

  /** A ticket's group: the issuer's answer, else (offline, or no answer) the roster's (`source: 'roster'`). */
  group(tid: string): Promise<GroupAnswer> {
    return this.exchange.ask((scanner, offline) => scanner.group(tid, { offline }));
  }

  /**
   * Checks in the chosen members of a group: each judged here by the rules on its own, queued with one
   * write and sent by the next upload, online or offline; one verdict each.
   */
  checkInGroup(members: FoundHolder[]): Promise<ScanResult[]> {
    return this.exchange.act(
      (scanner) => scanner.checkInGroup(members),
      () => null,
    );
  }

  /** How the rules would answer a holder known by name now (null when not enrolled). */
  judgeHolder(holder: NamedHolder): HolderJudgement | null {
    return this.scanner?.judgeHolder(holder) ?? null;
  }

  /**
   * **Find by name**: the holders whose name holds `q`, the issuer's, else (offline, or no answer) from
   * the roster kept on this phone (`source: 'roster'`); without a roster, ISSUER_UNREACHABLE.
   */
  findHolders(q: string): Promise<FoundHolders> {
    return this.exchange.ask((scanner, offline) => scanner.findHolders(q, { offline }));
  }

  /**
   * Checks in a holder chosen from **Find by name** (`manual`), stored like a scan before it resolves.
   * While the issuer answers, its answer is the verdict, and without one nobody is let in (the package's
   * `no_answer`); offline, a phone holding the roster judges the holder itself and queues the check-in,
   * as for a group's member.
   */
  async checkInManual(holder: FoundHolder): Promise<ScanResult> {
    if (this.link.offline && (await this.scanner?.rosterKind()) === 'roster') {
      const [result] = await this.checkInGroup([holder]);
      return result!;
    }
    return this.exchange.act(
      (scanner) => scanner.checkInManual(holder),
      (result) => result.issuer_contact,
    );
  }

  /** Syncs now (button **Sync now**, and the loop): uploads the queue, then pulls the changes feed. */
  sync(): Promise<SyncResult | null> {
    return this.link.sync();
  }

  /** Forgets the enrolment, the key and everything else, unless scans still wait for the issuer. */
  async forget(): Promise<void> {
    if (this.queued > 0) throw new Error(`${this.queued} scans have not reached the issuer yet: sync first.`);
    await this.link.stop();
    await this.closeScanner();
    await this.storage.forget();
    this.storage = await IndexedDbStorage.open();
    this.link.reset();
    this.notify();
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
