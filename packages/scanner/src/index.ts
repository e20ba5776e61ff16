/** The scanner SDK: enrol a device, scan online or offline, sync with the issuer. Runtime-agnostic. */
export { gatesAdmitting, type FoundHolder, type GateRule } from '@ticket-issuer/protocol';
export type { AnnulOptions, AnnulReason, AnnulResult } from './annul.ts';
export { IssuerClient, type IssuerClientOptions } from './client.ts';
export { CLOCK_NOISE_MS, CLOCK_WARNING_MS, clockOffMinutes, correctedClock, dateHeaderInstant } from './clock.ts';
export type { AnnulAnswer } from './issuer-answers.ts';
export { enroll, parseSetupUri, type EnrollOptions, type EnrollResult, type SetupUri } from './enroll.ts';
export {
  IssuerHttpError,
  IssuerNetworkError,
  isKeyRejected,
  isRateLimited,
  isRefusal,
  isTransient,
  isTurnedAwayAnswer,
  KEY_REJECTED_LINE,
  SCANNER_ERROR_CODES,
  ScannerError,
  StateCorruptError,
  TURNED_AWAY_OFFLINE,
  type Delivery,
  type ScannerErrorCode,
} from './errors.ts';
export { FeedKnowledge, type CheckInPlace } from './knowledge.ts';
export { readKnowledge, saveKnowledge } from './knowledge-store.ts';
export { judgeHolder, type HolderJudgement, type NamedHolder } from './holder-judgement.ts';
export { groupUrl, isGroupAnswer, othersToCheckIn, type GroupAnswer } from './group.ts';
export { holderSearchUrl, MIN_SEARCH_CHARACTERS, searchLength } from './holder-search.ts';
export { NO_ANSWER, type ChosenHolder } from './manual.ts';
export { type FoundHolders, type HolderSource } from './holder-lookup.ts';
export { Roster, type CodeLine, type RosterKind, type RosterLine } from './roster.ts';
export { KeptRoster } from './roster-store.ts';
export { eventUrl, syncRoster, type RosterSyncResult } from './roster-sync.ts';
export { isShortCode } from './typed-code.ts';
export { normalShortCode, shortCodeDigest, shownShortCode } from '@ticket-issuer/protocol';
export {
  checkInBody,
  deviceReport,
  isAnnul,
  ScanQueue,
  type Admission,
  type DeviceReport,
  type QueuedAnnul,
  type QueuedItem,
  type QueuedScan,
} from './queue.ts';
export { DEFAULT_RETRY_POLICY, withRetry, type RetryPolicy, type Timer } from './retry.ts';
export type { IssuerContact, ScanResult, ScanTicket } from './scan-result.ts';
export { Scanner, type ScannerOptions, type ScanOptions, type StatusReport, type SyncResult } from './scanner.ts';
export type { ScannerIdentity } from './state.ts';
export { MemoryStorage } from './storage/memory.ts';
export { JOURNALS, STATE_FILES, type JournalName, type Storage } from './storage/storage.ts';
export { pullChanges, SYNC_IN_FLIGHT, uploadQueue, type SyncOutcome, type UploadReport } from './sync.ts';
export { fetchTransport, type HttpAnswer, type HttpRequest, type Transport } from './transport.ts';
export { KeyRing, readToken, TOKEN_VERSIONS } from './token.ts';
export { decideOffline, type LocalKnowledge, type OfflineVerdict, type VerdictInput } from './verdict.ts';
