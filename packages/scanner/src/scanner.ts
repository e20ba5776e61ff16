import type { DiscoveryDocument, FoundHolder, GateRule } from '@ticket-issuer/protocol';
import { annulEntry, type AnnulOptions, type AnnulResult } from './annul.ts';
import { IssuerClient } from './client.ts';
import { isKeyRejected, ScannerError } from './errors.ts';
import type { FeedKnowledge } from './knowledge.ts';
import { readKnowledge, saveKnowledge } from './knowledge-store.ts';
import { ScanQueue } from './queue.ts';
import { DEFAULT_RETRY_POLICY, realTimer } from './retry.ts';
import { exitOffline, exitOnline } from './exit.ts';
import { holderSearchUrl } from './holder-search.ts';
import { type GroupAnswer, groupUrl } from './group.ts';
import { checkInManual, type ChosenHolder } from './manual.ts';
import { scanOffline } from './scan.ts';
import { scanOnline } from './scan-online.ts';
import type { ScanContext, ScanResult } from './scan-result.ts';
import { fetchRules, knownRules, type KnownRules, readRules, writeRules } from './rules.ts';
import { changesUrl, readApiKey, readDiscovery, readIdentity, type ScannerIdentity } from './state.ts';
import { STATE_FILES, type Storage } from './storage/storage.ts';
import { pullChanges, uploadQueue } from './sync.ts';
import type { ScannerOptions, ScanOptions, SyncResult } from './scanner-options.ts';
import { statusReport, type StatusReport } from './status.ts';
import { KeyRing } from './token.ts';
import { correctedClock } from './clock.ts';
import { type HolderJudgement, judgeHolder, type NamedHolder } from './holder-judgement.ts';

export type { ScannerOptions, ScanOptions, SyncResult } from './scanner-options.ts';
export type { StatusReport } from './status.ts';

/** An enrolled scanner device over its Storage: scan, sync, status. */
export class Scanner {
  private constructor(
    readonly storage: Storage,
    readonly identity: ScannerIdentity,
    private discovery: DiscoveryDocument,
    private keys: KeyRing,
    readonly knowledge: FeedKnowledge,
    readonly queue: ScanQueue,
    /** The event's rules the last sync read: gates, re-entry, calendar, ticket types. */
    private rules: KnownRules,
    private readonly client: IssuerClient,
    private readonly release: () => Promise<void>,
    private readonly options: ScannerOptions,
  ) {}

  /** Opens an enrolled state (taking its lock unless read-only); NOT_ENROLLED or STATE_CORRUPT otherwise. */
  static async open(storage: Storage, options: ScannerOptions = {}): Promise<Scanner> {
    const release = options.readOnly ? async () => undefined : await storage.lock();
    try {
      const identity = await readIdentity(storage);
      if (identity === null) throw new ScannerError('NOT_ENROLLED', 'no scanner is enrolled in this state directory');
      const apiKey = options.readOnly ? '' : await readApiKey(storage);
      const discovery = await readDiscovery(storage);
      const knowledge = await readKnowledge(storage);
      const queue = await ScanQueue.open(storage);
      const rules = await readRules(storage);
      const client = new IssuerClient({
        apiKey,
        fetch: options.fetch,
        transport: options.transport,
        timeoutMs: options.requestTimeoutMs ?? 5000,
      });
      const keys = new KeyRing(discovery.jwks.keys);
      return new Scanner(storage, identity, discovery, keys, knowledge, queue, rules, client, release, options);
    } catch (error) {
      await release();
      throw error;
    }
  }

  /** Gives the state back to other processes. */
  async close(): Promise<void> {
    await this.release();
  }

  /** The gate a scan names: the one asked for, else the key's; a gate-scoped key refuses another. */
  gateFor(asked: string | null | undefined): string | null {
    const own = this.identity.gate_id;
    if (asked === '') throw new ScannerError('INVALID_OPTION', 'the gate must not be empty');
    if (asked != null && own !== null && asked !== own) {
      throw new ScannerError('INVALID_OPTION', `this scanner is enrolled for gate ${own}, not ${asked}`);
    }
    return asked ?? own;
  }

  /**
   * Scans tokens and returns one verdict each, in order, every scan durably stored before it
   * returns. Offline: decided on the device, stored with one write. Online: one at a time.
   */
  async scan(tokens: readonly string[], options: ScanOptions = {}): Promise<ScanResult[]> {
    const gate = this.gateFor(options.gate);
    const ctx = this.scanContext();
    if (options.offline) return scanOffline(ctx, tokens, gate);
    const results: ScanResult[] = [];
    for (const token of tokens) results.push(await scanOnline(ctx, token, gate));
    return results;
  }

  /**
   * Exit scans, one verdict each in order (`exit`, or `reject`: `not_inside` when the device knows
   * the holder is not in), every scan durably stored before it returns; online one at a time.
   */
  async exit(tokens: readonly string[], options: ScanOptions = {}): Promise<ScanResult[]> {
    const gate = this.gateFor(options.gate);
    const ctx = this.scanContext();
    if (options.offline) return exitOffline(ctx, tokens, gate);
    const results: ScanResult[] = [];
    for (const token of tokens) results.push(await exitOnline(ctx, token, gate));
    return results;
  }

  /** Whether this device's key may find holders by name (`scope.allow_search` at enrolment). */
  get allowSearch(): boolean {
    return this.identity.allow_search === true;
  }

  /**
   * Finds holders by name, online only: the issuer's answer (at most 10, best matches first). A key
   * without the permission gets the issuer's 403 (IssuerHttpError FORBIDDEN); a query of fewer than 3
   * letters or digits its 400; no answer an IssuerNetworkError.
   */
  async search(q: string): Promise<FoundHolder[]> {
    const url = holderSearchUrl(this.identity.issuer, this.identity.eid);
    const answer = await this.client.searchHolders(url, q, this.options.onlineTimeoutMs ?? 3000);
    return answer.tickets;
  }

  /**
   * A ticket's group as the issuer answers it (online only): the tickets of its order, itself first.
   * No answer is an IssuerNetworkError; a tid the event does not know the issuer's 404.
   */
  async group(tid: string): Promise<GroupAnswer> {
    const url = groupUrl(holderSearchUrl(this.identity.issuer, this.identity.eid), tid);
    return this.client.group(url, this.options.onlineTimeoutMs ?? 3000);
  }

  /**
   * Checks in the members of a group chosen at the gate, one check-in each (like a holder found by
   * name: `manual`, each judged by the issuer on its own), in order; one verdict each.
   */
  async checkInGroup(members: readonly ChosenHolder[], options: Pick<ScanOptions, 'gate'> = {}): Promise<ScanResult[]> {
    const results: ScanResult[] = [];
    for (const member of members) results.push(await this.checkInManual(member, options));
    return results;
  }

  /**
   * How the entry rules would answer a holder known by name (a search's, a group's, the roster's) at
   * the gate now, by what the device knows: said before staff choose them. See holder-judgement.ts.
   */
  judgeHolder(holder: NamedHolder, options: Pick<ScanOptions, 'gate'> = {}): HolderJudgement {
    return judgeHolder(this.scanContext(), holder, this.gateFor(options.gate));
  }

  /**
   * Checks in a holder chosen from a search (`manual: true`, no token), stored like a scan; the
   * issuer's answer is the verdict, and without one the holder is not let in (`no_answer`). See manual.ts.
   */
  checkInManual(holder: string | ChosenHolder, options: Pick<ScanOptions, 'gate'> = {}): Promise<ScanResult> {
    const gate = this.gateFor(options.gate);
    return checkInManual(this.scanContext(), typeof holder === 'string' ? { tid: holder } : holder, gate);
  }

  /**
   * Undoes an entry this device made: the one under `idempotencyKey`, by default its last admission.
   * Online (unless `options.offline`) the issuer decides (`source: 'issuer'`, or its refusal with the
   * reason); without an answer, or offline, the device judges on the shared rule and queues the annul
   * after the scan it undoes (`source: 'queued'`), counting the entry no more at once. See annul.ts.
   */
  annul(idempotencyKey?: string, options: AnnulOptions = {}): Promise<AnnulResult> {
    return annulEntry(this.scanContext(), idempotencyKey, options);
  }

  /**
   * Uploads the queue, then pulls the changes feed and refreshes the discovery document (JWKS). A
   * rejected key (401) throws, with every scan not yet answered still queued.
   */
  async sync(): Promise<SyncResult> {
    const policy = this.options.retryPolicy ?? DEFAULT_RETRY_POLICY;
    const timer = this.options.timer ?? realTimer;
    const upload = await uploadQueue({
      ...this.uploadTarget(),
      policy,
      timer,
      concurrency: this.options.concurrency,
    });
    let changes = 0;
    let problem: Error | null = upload.problem;
    if (upload.reachable) {
      // Every move this device recorded so far was answered before this pull: the feed will hold it.
      const movesSeen = this.queue.lastMove;
      let pulled = false;
      try {
        changes = await pullChanges(
          this.client,
          changesUrl(this.discovery, this.identity.eid),
          this.knowledge,
          policy,
          timer,
        );
        const syncedAt = this.now().toISOString();
        this.knowledge.lastSyncAt = syncedAt;
        pulled = true;
        await this.refreshDiscovery();
        await this.refreshRules();
        this.knowledge.rulesSyncedAt = syncedAt;
      } catch (error) {
        if (!(error instanceof ScannerError) || isKeyRejected(error)) throw error;
        problem ??= error;
      }
      // Whatever pages arrived are kept with their cursor, even when a later page failed.
      await saveKnowledge(this.storage, this.knowledge);
      if (pulled) await this.queue.movesInFeed(movesSeen);
    }
    // Admissions are kept as long as an annul on the device may name them: the issuer's window.
    if (this.queue.compactable) await this.queue.compact(this.issuerNow(), this.rules.annulWindowS);
    const { uploaded, refused, refusedAgreed, conflicts, outcomes } = upload;
    return { uploaded, refused, refusedAgreed, conflicts, outcomes, remaining: this.queue.size, changes, problem };
  }

  /**
   * Whether this device has synced the changes feed and the event's rules at least once (enrolment
   * tries to). Until then its offline verdicts know no revocation nor check-in but its own, and say so.
   */
  get synced(): boolean {
    return this.knowledge.lastSyncAt !== null && this.knowledge.rulesSyncedAt !== null;
  }

  /** The event's declared gates, as the last sync read them. */
  get gates(): GateRule[] {
    return [...this.rules.gates.values()];
  }

  /** Who this scanner is and what it knows (see `statusReport`). */
  status(): StatusReport {
    return statusReport(this.identity, this.knowledge, this.queue, this.rules);
  }

  /** The device's clock (the option's, else the system's). */
  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  /**
   * The issuer's time as this device reckons it: its clock corrected by the offset the last sync
   * measured (see clock.ts). Scans are stamped, and the rules judged, by it.
   */
  readonly issuerNow: () => Date = correctedClock(
    () => this.now(),
    () => this.rules.clockOffsetMs,
  );

  private async refreshDiscovery(): Promise<void> {
    const discovery = await this.client.discovery(this.identity.issuer);
    await this.storage.writeFileAtomic(STATE_FILES.discovery, `${JSON.stringify(discovery)}\n`);
    this.discovery = discovery;
    this.keys = new KeyRing(discovery.jwks.keys);
  }

  /**
   * Reads the event's rules (offline scans then apply them) and keeps them: the rules route, or the
   * gates route of an issuer from before it (see `fetchRules`). The device's clock halfway through the
   * request is kept beside the issuer's `server_time`: how far off this device's clock is.
   */
  private async refreshRules(): Promise<void> {
    const asked = this.now().getTime();
    const answer = await fetchRules(this.client, this.discovery, this.identity.eid);
    const deviceTime = new Date((asked + this.now().getTime()) / 2).toISOString();
    await writeRules(this.storage, answer, deviceTime);
    this.rules = knownRules(answer, deviceTime);
  }

  private uploadTarget() {
    return {
      client: this.client,
      queue: this.queue,
      storage: this.storage,
      checkInUrl: this.discovery.endpoints.check_in,
      checkOutUrl: this.discovery.endpoints.check_out,
      who: { eid: this.identity.eid, scanner_id: this.identity.scanner_id },
      deviceClock: () => this.now(),
    };
  }

  private scanContext(): ScanContext {
    return {
      ...this.uploadTarget(),
      eid: this.identity.eid,
      iss: this.identity.issuer,
      scannerId: this.identity.scanner_id,
      keys: this.keys,
      knowledge: this.knowledge,
      rules: this.rules,
      checkOutUrl: this.discovery.endpoints.check_out,
      feedOut: this.knowledge.out,
      now: this.issuerNow,
      onlineTimeoutMs: this.options.onlineTimeoutMs ?? 3000,
      synced: this.synced,
    };
  }
}
