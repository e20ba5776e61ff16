/**
 * What an open Scanner is made of: its state on the storage, what it knows, and the clocks, in one
 * object that the scanning and syncing functions take. The discovery document, its keys and the
 * rules are replaced by each sync.
 */
import type { DiscoveryDocument } from '@ticket-issuer/protocol';
import { IssuerClient } from './client.ts';
import { correctedClock } from './clock.ts';
import { ScannerError } from './errors.ts';
import type { FeedKnowledge } from './knowledge.ts';
import { readKnowledge } from './knowledge-store.ts';
import { ScanQueue } from './queue.ts';
import { KeptRoster } from './roster-store.ts';
import { type KnownRules, readRules } from './rules.ts';
import type { ScanContext } from './scan-result.ts';
import type { ScannerOptions } from './scanner-options.ts';
import { readApiKey, readDiscovery, readIdentity, type ScannerIdentity } from './state.ts';
import type { Storage } from './storage/storage.ts';
import type { UploadContext } from './sync.ts';
import { KeyRing } from './token.ts';

export interface DeviceParts {
  readonly storage: Storage;
  readonly identity: ScannerIdentity;
  readonly knowledge: FeedKnowledge;
  readonly queue: ScanQueue;
  /**
   * The offline roster, read from the storage on first use (a state holding 50,000 names takes a
   * moment to read: a scan of a token never waits for it).
   */
  readonly roster: () => Promise<KeptRoster>;
  /** The roster if something has read it already (a sync, a search, a typed code), else null. */
  readonly rosterIfRead: () => Promise<KeptRoster> | null;
  readonly client: IssuerClient;
  readonly options: ScannerOptions;
  discovery: DiscoveryDocument;
  keys: KeyRing;
  /** The event's rules the last sync read: gates, re-entry, calendar, ticket types. */
  rules: KnownRules;
  /** The device's clock (the option's, else the system's). */
  now(): Date;
  /** The issuer's time as the device reckons it (see clock.ts). */
  issuerNow(): Date;
}

/** Reads an enrolled state into its parts; NOT_ENROLLED or STATE_CORRUPT otherwise (the caller holds the lock). */
export async function openDevice(storage: Storage, options: ScannerOptions): Promise<DeviceParts> {
  const identity = await readIdentity(storage);
  if (identity === null) throw new ScannerError('NOT_ENROLLED', 'no scanner is enrolled in this state directory');
  const apiKey = options.readOnly ? '' : await readApiKey(storage);
  const discovery = await readDiscovery(storage);
  const client = new IssuerClient({
    apiKey,
    fetch: options.fetch,
    transport: options.transport,
    timeoutMs: options.requestTimeoutMs ?? 5000,
  });
  const now = () => options.now?.() ?? new Date();
  let roster: Promise<KeptRoster> | null = null;
  const d: DeviceParts = {
    storage,
    identity,
    knowledge: await readKnowledge(storage),
    queue: await ScanQueue.open(storage),
    roster: () =>
      (roster ??= KeptRoster.open(storage, identity.eid).catch((error: unknown) => {
        roster = null;
        throw error;
      })),
    rosterIfRead: () => roster,
    client,
    options,
    discovery,
    keys: new KeyRing(discovery.jwks.keys),
    rules: await readRules(storage),
    now,
    // Scans are stamped, and the rules judged, by the clock the last sync corrected (clock.ts).
    issuerNow: correctedClock(now, () => d.rules.clockOffsetMs),
  };
  return d;
}

/** Whether the device has synced the feed and the rules at least once. */
export const hasSynced = (d: DeviceParts): boolean =>
  d.knowledge.lastSyncAt !== null && d.knowledge.rulesSyncedAt !== null;

/** What uploading the queue needs. */
export function uploadTarget(d: DeviceParts): UploadContext {
  return {
    client: d.client,
    queue: d.queue,
    storage: d.storage,
    checkInUrl: d.discovery.endpoints.check_in,
    checkOutUrl: d.discovery.endpoints.check_out,
    who: { eid: d.identity.eid, scanner_id: d.identity.scanner_id },
    deviceClock: () => d.now(),
  };
}

/** What scanning needs. */
export function scanContext(d: DeviceParts): ScanContext & UploadContext {
  return {
    ...uploadTarget(d),
    eid: d.identity.eid,
    iss: d.identity.issuer,
    scannerId: d.identity.scanner_id,
    keys: d.keys,
    knowledge: d.knowledge,
    rules: d.rules,
    checkOutUrl: d.discovery.endpoints.check_out,
    feedOut: d.knowledge.out,
    now: () => d.issuerNow(),
    onlineTimeoutMs: d.options.onlineTimeoutMs ?? 3000,
    synced: hasSynced(d),
  };
}
