/**
 * A device's sync: the queue goes up, then the changes feed, the discovery document (JWKS) and the
 * event's rules come down, then the offline roster (or the short codes' digests). The roster comes
 * last and never fails the sync: a page that fails is asked again at the next one.
 */
import { type DeviceParts, uploadTarget } from './device-parts.ts';
import { isKeyRejected, ScannerError } from './errors.ts';
import { saveKnowledge } from './knowledge-store.ts';
import { DEFAULT_RETRY_POLICY, realTimer } from './retry.ts';
import { eventUrl, syncRoster } from './roster-sync.ts';
import { fetchRules, knownRules, writeRules } from './rules.ts';
import type { SyncResult } from './scanner-options.ts';
import { changesUrl } from './state.ts';
import { STATE_FILES } from './storage/storage.ts';
import { pullChanges, uploadQueue } from './sync.ts';
import { KeyRing } from './token.ts';

async function refreshDiscovery(d: DeviceParts): Promise<void> {
  const discovery = await d.client.discovery(d.identity.issuer);
  await d.storage.writeFileAtomic(STATE_FILES.discovery, `${JSON.stringify(discovery)}\n`);
  d.discovery = discovery;
  d.keys = new KeyRing(discovery.jwks.keys);
}

/**
 * Reads the event's rules (offline scans then apply them) and keeps them: the rules route, or the
 * gates route of an issuer from before it (see `fetchRules`). The device's clock halfway through the
 * request is kept beside the issuer's `server_time`: how far off this device's clock is.
 */
async function refreshRules(d: DeviceParts): Promise<void> {
  const asked = d.now().getTime();
  const answer = await fetchRules(d.client, d.discovery, d.identity.eid);
  const deviceTime = new Date((asked + d.now().getTime()) / 2).toISOString();
  await writeRules(d.storage, answer, deviceTime);
  d.rules = knownRules(answer, deviceTime);
}

/**
 * Uploads the queue, then pulls the changes feed, refreshes the discovery document and the rules,
 * then syncs the roster. A rejected key (401) throws, with every scan not yet answered still queued
 * and the roster (names) forgotten.
 */
export async function syncDevice(d: DeviceParts): Promise<SyncResult> {
  try {
    return await syncAll(d);
  } catch (error) {
    // A key the issuer no longer accepts may no longer hold its holders' names.
    if (isKeyRejected(error)) await (await d.roster()).forget();
    throw error;
  }
}

async function syncAll(d: DeviceParts): Promise<SyncResult> {
  const policy = d.options.retryPolicy ?? DEFAULT_RETRY_POLICY;
  const timer = d.options.timer ?? realTimer;
  const upload = await uploadQueue({ ...uploadTarget(d), policy, timer, concurrency: d.options.concurrency });
  let changes = 0;
  let problem: Error | null = upload.problem;
  let roster: SyncResult['roster'] = { lines: 0, problem: null };
  if (upload.reachable) {
    // Every move this device recorded so far was answered before this pull: the feed will hold it.
    const movesSeen = d.queue.lastMove;
    let pulled = false;
    try {
      changes = await pullChanges(d.client, changesUrl(d.discovery, d.identity.eid), d.knowledge, policy, timer);
      const syncedAt = d.now().toISOString();
      d.knowledge.lastSyncAt = syncedAt;
      pulled = true;
      await refreshDiscovery(d);
      await refreshRules(d);
      d.knowledge.rulesSyncedAt = syncedAt;
    } catch (error) {
      if (!(error instanceof ScannerError) || isKeyRejected(error)) throw error;
      problem ??= error;
    }
    // Whatever pages arrived are kept with their cursor, even when a later page failed.
    await saveKnowledge(d.storage, d.knowledge);
    if (pulled) await d.queue.movesInFeed(movesSeen);
    if (pulled) {
      const base = eventUrl(d.identity.issuer, d.identity.eid);
      roster = await syncRoster({
        client: d.client,
        roster: await d.roster(),
        eventUrl: base,
        apiKeyId: d.identity.api_key_id,
        policy,
        timer,
      });
    }
  }
  // Admissions are kept as long as an annul on the device may name them: the issuer's window.
  if (d.queue.compactable) await d.queue.compact(d.issuerNow(), d.rules.annulWindowS);
  const { uploaded, refused, refusedAgreed, conflicts, outcomes } = upload;
  return { uploaded, refused, refusedAgreed, conflicts, outcomes, remaining: d.queue.size, changes, problem, roster };
}
