import type { FoundHolder, GateRule } from '@ticket-issuer/protocol';
import { annulEntry, type AnnulOptions, type AnnulResult } from './annul.ts';
import { type DeviceParts, hasSynced, openDevice, scanContext } from './device-parts.ts';
import { syncDevice } from './device-sync.ts';
import { isTransient, ScannerError } from './errors.ts';
import type { FeedKnowledge } from './knowledge.ts';
import type { ScanQueue } from './queue.ts';
import { exitOffline, exitOnline } from './exit.ts';
import { exitCode } from './typed-exit.ts';
import { holderSearchUrl } from './holder-search.ts';
import { findOffline, type FoundHolders, groupOffline, namedByRoster } from './holder-lookup.ts';
import { type GroupAnswer, groupUrl } from './group.ts';
import { checkInManual, type ChosenHolder } from './manual.ts';
import { queueGroup } from './named-scan.ts';
import type { RosterKind } from './roster.ts';
import { eventUrl } from './roster-sync.ts';
import { scanOffline } from './scan.ts';
import { scanOnline } from './scan-online.ts';
import type { ScanResult } from './scan-result.ts';
import type { ScannerIdentity } from './state.ts';
import type { Storage } from './storage/storage.ts';
import type { ScannerOptions, ScanOptions, SyncResult } from './scanner-options.ts';
import { statusReport, type StatusReport } from './status.ts';
import { type HolderJudgement, judgeHolder, type NamedHolder } from './holder-judgement.ts';
import { scanCode } from './typed-code.ts';
import { scanInOrder } from './scan-order.ts';

export type { ScannerOptions, ScanOptions, SyncResult } from './scanner-options.ts';
export type { StatusReport } from './status.ts';

/** An enrolled scanner device over its Storage: scan, sync, status, find holders, groups. */
export class Scanner {
  private constructor(
    private readonly d: DeviceParts,
    private readonly release: () => Promise<void>,
  ) {}

  /** Opens an enrolled state (taking its lock unless read-only); NOT_ENROLLED or STATE_CORRUPT otherwise. */
  static async open(storage: Storage, options: ScannerOptions = {}): Promise<Scanner> {
    const release = options.readOnly ? async () => undefined : await storage.lock();
    try {
      const d = await openDevice(storage, options);
      return new Scanner(d, release);
    } catch (error) {
      await release();
      throw error;
    }
  }

  /** Gives the state back to other processes. */
  async close(): Promise<void> {
    await this.release();
  }

  get storage(): Storage {
    return this.d.storage;
  }
  get identity(): ScannerIdentity {
    return this.d.identity;
  }
  get knowledge(): FeedKnowledge {
    return this.d.knowledge;
  }
  get queue(): ScanQueue {
    return this.d.queue;
  }

  /** The gate a scan names: the one asked for, else the key's; a gate-scoped key refuses another. */
  gateFor(asked: string | null | undefined): string | null {
    const own = this.d.identity.gate_id;
    if (asked === '') throw new ScannerError('INVALID_OPTION', 'the gate must not be empty');
    if (asked != null && own !== null && asked !== own) {
      throw new ScannerError('INVALID_OPTION', `this scanner is enrolled for gate ${own}, not ${asked}`);
    }
    return asked ?? own;
  }

  /**
   * Scans tokens, or typed short codes (`K7M2P-9QX4T`, any case, dashes and spaces ignored), and
   * returns one verdict each, in order, every scan durably stored before it returns. Offline: decided
   * on the device (a run of tokens stored with one write). Online: one at a time. A short code is
   * resolved by the issuer, else by the roster or the digests; an unknown one is rejected `NOT_FOUND`.
   */
  async scan(tokens: readonly string[], options: ScanOptions = {}): Promise<ScanResult[]> {
    const gate = this.gateFor(options.gate);
    const ctx = scanContext(this.d);
    const offline = options.offline === true;
    return this.named(
      await scanInOrder(
        tokens,
        offline,
        async (typed) => scanCode(ctx, await this.d.roster(), this.eventBase, typed, gate, offline),
        (run) => scanOffline(ctx, run, gate),
        (token) => scanOnline(ctx, token, gate),
      ),
    );
  }

  /**
   * Exit scans of tokens or typed short codes (resolved as at the entry), one verdict each in order
   * (`exit`, or `reject`: `not_inside` when the device knows the holder is not in), every scan durably
   * stored before it returns; online one at a time.
   */
  async exit(tokens: readonly string[], options: ScanOptions = {}): Promise<ScanResult[]> {
    const gate = this.gateFor(options.gate);
    const ctx = scanContext(this.d);
    const offline = options.offline === true;
    return this.named(
      await scanInOrder(
        tokens,
        offline,
        async (typed) => exitCode(ctx, await this.d.roster(), this.eventBase, typed, gate, offline),
        (run) => exitOffline(ctx, run, gate),
        (token) => exitOnline(ctx, token, gate),
      ),
    );
  }

  private get eventBase(): string {
    return eventUrl(this.d.identity.issuer, this.d.identity.eid);
  }

  /** Verdicts decided here named from the roster where it is read already (a token's scan never waits for it). */
  private named = (results: ScanResult[]) => namedByRoster(results, this.d.rosterIfRead());

  /** Whether this device's key may find holders by name (`scope.allow_search` at enrolment). */
  get allowSearch(): boolean {
    return this.d.identity.allow_search === true;
  }

  /** What the device holds for offline use: names (`roster`), digests only (`codes`), or nothing yet. */
  async rosterKind(): Promise<RosterKind> {
    return (await this.d.roster()).kind;
  }

  /**
   * Finds holders by name (at most 10, best matches first): the issuer's answer, or when it cannot
   * answer (or `offline`) the roster's, each holder judged by what the device knows. A key without
   * the permission gets the issuer's 403 (IssuerHttpError FORBIDDEN); a query of fewer than 3 letters
   * or digits the issuer's 400 (offline: INVALID_OPTION); offline without a roster ISSUER_UNREACHABLE.
   */
  async findHolders(q: string, options: Pick<ScanOptions, 'offline'> = {}): Promise<FoundHolders> {
    if (!options.offline) {
      try {
        const url = holderSearchUrl(this.d.identity.issuer, this.d.identity.eid);
        const answer = await this.d.client.searchHolders(url, q, this.onlineTimeoutMs);
        return { tickets: answer.tickets, source: 'issuer' };
      } catch (error) {
        if (!isTransient(error) || (await this.rosterKind()) !== 'roster') throw error;
      }
    }
    return findOffline(scanContext(this.d), await this.d.roster(), q);
  }

  /** Find by name's holders alone (see `findHolders`). */
  async search(q: string, options: Pick<ScanOptions, 'offline'> = {}): Promise<FoundHolder[]> {
    return (await this.findHolders(q, options)).tickets;
  }

  /**
   * A ticket's group, the tickets of its order, itself first: the issuer's answer, or when it cannot
   * answer (or `offline`) the roster's (`source: 'roster'`). A tid the event does not know: the
   * issuer's 404; one the roster does not hold: INVALID_OPTION.
   */
  async group(tid: string, options: Pick<ScanOptions, 'offline'> = {}): Promise<GroupAnswer> {
    if (!options.offline) {
      try {
        const url = groupUrl(holderSearchUrl(this.d.identity.issuer, this.d.identity.eid), tid);
        return { ...(await this.d.client.group(url, this.onlineTimeoutMs)), source: 'issuer' };
      } catch (error) {
        if (!isTransient(error) || (await this.rosterKind()) !== 'roster') throw error;
      }
    }
    return groupOffline(scanContext(this.d), await this.d.roster(), tid);
  }

  /**
   * Checks in the members of a group chosen at the gate: each judged on the device by the rules on
   * its own (a revoked member is refused, the others go in), stored with one durable write and sent
   * by the next sync in one upload, online or offline. One verdict each, in order. See named-scan.ts.
   */
  checkInGroup(members: readonly ChosenHolder[], options: Pick<ScanOptions, 'gate'> = {}): Promise<ScanResult[]> {
    const named = members.map((m) => ({ ...m, ticket_type: m.ticket_type ?? '' }));
    return queueGroup(scanContext(this.d), named, this.gateFor(options.gate));
  }

  /**
   * How the entry rules would answer a holder known by name (a search's, a group's, the roster's) at
   * the gate now, by what the device knows: said before staff choose them. See holder-judgement.ts.
   */
  judgeHolder(holder: NamedHolder, options: Pick<ScanOptions, 'gate'> = {}): HolderJudgement {
    return judgeHolder(scanContext(this.d), holder, this.gateFor(options.gate));
  }

  /**
   * Checks in a holder chosen from a search (`manual: true`, no token), stored like a scan; the
   * issuer's answer is the verdict, and without one the holder is not let in (`no_answer`). See manual.ts.
   */
  checkInManual(holder: string | ChosenHolder, options: Pick<ScanOptions, 'gate'> = {}): Promise<ScanResult> {
    const gate = this.gateFor(options.gate);
    return checkInManual(scanContext(this.d), typeof holder === 'string' ? { tid: holder } : holder, gate);
  }

  /**
   * Undoes an entry this device made: the one under `idempotencyKey`, by default its last admission.
   * Online (unless `options.offline`) the issuer decides (`source: 'issuer'`, or its refusal with the
   * reason); without an answer, or offline, the device judges on the shared rule and queues the annul
   * after the scan it undoes (`source: 'queued'`), counting the entry no more at once. See annul.ts.
   */
  annul(idempotencyKey?: string, options: AnnulOptions = {}): Promise<AnnulResult> {
    return annulEntry(scanContext(this.d), idempotencyKey, options);
  }

  /**
   * Uploads the queue, then pulls the changes feed, the discovery document (JWKS), the rules and the
   * roster (see device-sync.ts). A rejected key (401) throws, with every scan not yet answered still
   * queued, and the roster forgotten.
   */
  sync(): Promise<SyncResult> {
    return syncDevice(this.d);
  }

  /**
   * Whether this device has synced the changes feed and the event's rules at least once (enrolment
   * tries to). Until then its offline verdicts know no revocation nor check-in but its own, and say so.
   */
  get synced(): boolean {
    return hasSynced(this.d);
  }

  /** The event's declared gates, as the last sync read them. */
  get gates(): GateRule[] {
    return [...this.d.rules.gates.values()];
  }

  /** Who this scanner is and what it knows (see `statusReport`). */
  status(): StatusReport {
    return statusReport(this.d.identity, this.d.knowledge, this.d.queue, this.d.rules);
  }

  /** The issuer's time as this device reckons it: its clock corrected by the last sync's offset. */
  readonly issuerNow = (): Date => this.d.issuerNow();

  private get onlineTimeoutMs(): number {
    return this.d.options.onlineTimeoutMs ?? 3000;
  }
}
