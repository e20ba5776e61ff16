import { type DiscoveryDocument, type EnrollAnswer, SETUP_URI_PREFIX } from '@ticket-issuer/protocol';
import { IssuerClient } from './client.ts';
import { IssuerHttpError, ScannerError } from './errors.ts';
import { readKnowledge, resetKnowledge } from './knowledge-store.ts';
import { ScanQueue } from './queue.ts';
import type { RetryPolicy, Timer } from './retry.ts';
import { rulesFromGates, writeRules } from './rules.ts';
import { Scanner } from './scanner.ts';
import { readIdentity, type ScannerIdentity } from './state.ts';
import { JOURNALS, STATE_FILES, type Storage } from './storage/storage.ts';
import type { Transport } from './transport.ts';

/** What a setup QR code carries. */
export interface SetupUri {
  /** The issuer's base URL. */
  iss: string;
  /** The single-use enrolment token (`st_…`). */
  token: string;
}

/** Reads `ticket-issuer://enroll?iss=<issuer base URL>&token=st_…`; INVALID_SETUP_URI when it is not one. */
export function parseSetupUri(uri: string): SetupUri {
  const invalid = (why: string) => new ScannerError('INVALID_SETUP_URI', `not a ticket-issuer setup URI: ${why}`);
  if (!uri.startsWith(SETUP_URI_PREFIX)) throw invalid(`it must start with ${SETUP_URI_PREFIX}`);
  const query = new URLSearchParams(uri.slice(SETUP_URI_PREFIX.length));
  const iss = query.get('iss');
  const token = query.get('token');
  if (iss === null || iss === '') throw invalid('iss is missing');
  let url: URL;
  try {
    url = new URL(iss);
  } catch {
    throw invalid('iss is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('iss is not an http(s) URL');
  if (token === null || !/^st_[\x21-\x7e]+$/.test(token)) throw invalid('token is missing or not an enrolment token');
  return { iss: iss.replace(/\/+$/, ''), token };
}

/** Options of an enrolment. */
export interface EnrollOptions {
  /** Shown in the organizer's console; on re-enrolment the stored name is kept unless this is given. */
  name?: string;
  /** The name of a device enrolled for the first time without `name` (default "ticket-scanner"). */
  defaultName?: string;
  /** Sent as `scanner_platform` (default "ticket-scanner/0.1"). */
  platform?: string;
  fetch?: typeof fetch;
  /** How requests travel; takes precedence over `fetch` (see `IssuerClientOptions`). */
  transport?: Transport;
  now?: () => Date;
  /** The first sync's tries (see `ScannerOptions`). */
  retryPolicy?: RetryPolicy;
  timer?: Timer;
  requestTimeoutMs?: number;
}

/** Who the scanner is now (the CLI's `enroll` line), and how its first sync went. */
export interface EnrollResult {
  scanner_id: string;
  api_key_id: string;
  eid: string;
  event_name: string;
  gate_id: string | null;
  /** The first sync read the changes feed and the gates: offline verdicts know what the issuer knew. */
  synced: boolean;
  /** Why the first sync did not complete (the enrolment stands), or null. */
  sync_problem: Error | null;
}

/**
 * Queued scans can follow the device to a new key only within one issuer and one event. The issuer is
 * known before enrolling (the discovery document); the event only from the token, so the enrolment
 * asks the issuer to refuse a token of another event without using it (`expected_eid`). `eid` is the
 * event of the enrolment made (an issuer that does not know `expected_eid` enrols anyway: that
 * enrolment is then not kept); `unused` says the setup code was refused before it was used.
 */
function keepsQueue(
  existing: ScannerIdentity | null,
  queue: ScanQueue,
  issuer: string,
  eid?: string,
  unused = false,
): void {
  if (existing === null || queue.size === 0) return;
  let what: string | null = null;
  if (existing.issuer !== issuer) what = `another issuer (${issuer})`;
  else if (unused || (eid !== undefined && existing.eid !== eid))
    what = eid === undefined ? 'another event' : `another event (${eid})`;
  if (what === null) return;
  throw new ScannerError(
    'ALREADY_ENROLLED',
    `this state directory holds ${queue.size} queued scan(s) of event ${existing.eid} and the setup code is for ${what}: ` +
      `run "ticket-scanner sync" once the old key works, or use another --state` +
      (unused ? '; the setup code was not used' : eid === undefined ? '' : '; this enrolment was not kept'),
  );
}

/** Whether the issuer refused the token for being of another event than `expected_eid` (it stays unused). */
const otherEvent = (error: unknown): boolean =>
  error instanceof IssuerHttpError && error.status === 409 && error.details.reason === 'other_event';

/** Whether the stored changes-feed knowledge (snapshot and journal) can be kept. */
async function knowledgeReadable(storage: Storage): Promise<boolean> {
  try {
    await readKnowledge(storage);
    return true;
  } catch {
    return false;
  }
}

/** The scanner's identity from the enrolment answer: everything but the key. */
function identityOf(
  answer: EnrollAnswer,
  discovery: DiscoveryDocument,
  scannerId: string,
  name: string,
  now: Date,
): ScannerIdentity {
  return {
    issuer: discovery.iss.replace(/\/+$/, ''),
    issuer_name: answer.issuer?.name ?? discovery.name,
    scanner_id: scannerId,
    scanner_name: name,
    api_key_id: answer.api_key_id,
    eid: answer.scope.eid,
    event_name: answer.scope.event_name,
    event_date: answer.scope.event_date,
    gate_id: answer.scope.gate_id ?? null,
    key_expires_at: answer.scope.expires_at,
    enrolled_at: now.toISOString(),
    allow_search: answer.scope.allow_search === true,
  };
}

/**
 * Enrols this device: reads the setup URI, fetches the issuer's discovery document (which must name
 * the same `iss`), exchanges the token for an API key, and stores the key (alone, owner-only), the
 * scanner's identity and the discovery document with its JWKS. A device enrolled again keeps its
 * `scanner_id`, its name and, for the same event, its queued scans (which then sync under the new
 * key) and what the changes feed taught it.
 *
 * Then a first sync: queued scans go up, the changes feed, the keys and the gates come down, so that
 * an offline verdict right after enrolment knows the revocations and check-ins. When it fails the
 * enrolment stands, and the answer says why (`sync_problem`).
 */
export async function enroll(storage: Storage, setupUri: string, options: EnrollOptions = {}): Promise<EnrollResult> {
  const enrolled = await enrollOnly(storage, setupUri, options);
  return { ...enrolled, ...(await firstSync(storage, options)) };
}

/** The first sync after an enrolment; a failure is reported, not thrown (a bug's error excepted). */
async function firstSync(
  storage: Storage,
  options: EnrollOptions,
): Promise<Pick<EnrollResult, 'synced' | 'sync_problem'>> {
  let scanner: Scanner | null = null;
  try {
    scanner = await Scanner.open(storage, {
      fetch: options.fetch,
      transport: options.transport,
      now: options.now,
      retryPolicy: options.retryPolicy,
      timer: options.timer,
      requestTimeoutMs: options.requestTimeoutMs,
    });
    const result = await scanner.sync();
    return { synced: scanner.synced, sync_problem: result.problem };
  } catch (error) {
    if (!(error instanceof ScannerError)) throw error;
    return { synced: false, sync_problem: error };
  } finally {
    await scanner?.close();
  }
}

async function enrollOnly(
  storage: Storage,
  setupUri: string,
  options: EnrollOptions,
): Promise<Omit<EnrollResult, 'synced' | 'sync_problem'>> {
  const setup = parseSetupUri(setupUri);
  const release = await storage.lock();
  try {
    const existing = await readIdentity(storage);
    const queue = await ScanQueue.open(storage);
    const client = new IssuerClient({ fetch: options.fetch, transport: options.transport });
    const discovery = await client.discovery(setup.iss);
    keepsQueue(existing, queue, discovery.iss.replace(/\/+$/, ''));
    const scannerId = existing?.scanner_id ?? crypto.randomUUID();
    const name = options.name ?? existing?.scanner_name ?? options.defaultName ?? 'ticket-scanner';
    // Queued scans hold the device to their event: a token of another one must stay unused.
    const onlyEvent = existing !== null && queue.size > 0 ? existing.eid : undefined;
    // A blank name is left out: the issuer then names the scanner itself (after its gate).
    const answer = await client
      .enroll(discovery.endpoints.enroll, {
        token: setup.token,
        scanner_id: scannerId,
        ...(name.trim() === '' ? {} : { scanner_name: name }),
        scanner_platform: options.platform ?? 'ticket-scanner/0.1',
        ...(onlyEvent === undefined ? {} : { expected_eid: onlyEvent }),
      })
      .catch((error: unknown) => {
        if (otherEvent(error)) keepsQueue(existing, queue, discovery.iss.replace(/\/+$/, ''), undefined, true);
        throw error;
      });
    const chosen = answer.scanner_name ?? name;
    const identity = identityOf(answer, discovery, scannerId, chosen, options.now?.() ?? new Date());
    keepsQueue(existing, queue, identity.issuer, identity.eid);
    const sameEvent = existing !== null && existing.issuer === identity.issuer && existing.eid === identity.eid;
    // The key first and alone; the identity last, as the mark that enrolment completed.
    await storage.writeFileAtomic(STATE_FILES.credentials, `${JSON.stringify({ api_key: answer.api_key })}\n`);
    await storage.writeFileAtomic(STATE_FILES.discovery, `${JSON.stringify(discovery)}\n`);
    if (!sameEvent || !(await knowledgeReadable(storage))) {
      await resetKnowledge(storage);
    }
    // Another event's holders are none of this device's business, nor names for a key not allowed them.
    if (!sameEvent || !identity.allow_search) await storage.replaceJournal([], JOURNALS.roster);
    // Another event's rules mean nothing here: none are known until this event's are read.
    // (`rules.json` is read before an older scanner's `gates.json`: writing it empty hides both.)
    const kept = [await storage.readFile(STATE_FILES.rules), await storage.readFile(STATE_FILES.gates)];
    if (!sameEvent && kept.some((text) => text !== null)) {
      await writeRules(storage, rulesFromGates({ gates: [], reentry: false }));
    }
    // Another event's admitted tickets mean nothing here; a queue whose event is unknown (no
    // scanner.json) is kept: its scans are sent, and refused for good if they belong elsewhere.
    if (!sameEvent && queue.size === 0) await queue.reset();
    await storage.writeFileAtomic(STATE_FILES.scanner, `${JSON.stringify(identity, null, 2)}\n`);
    return {
      scanner_id: identity.scanner_id,
      api_key_id: identity.api_key_id,
      eid: identity.eid,
      event_name: identity.event_name,
      gate_id: identity.gate_id,
    };
  } finally {
    await release();
  }
}
