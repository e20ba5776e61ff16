/**
 * The wire format of the ticket verification API v1 and of the contract's additions, in one place:
 * the issuer and the scanner package both import it, neither imports the other.
 */

export * from './wire.ts';
export { CASE_GATES, CASE_TICKET_TYPE, VERDICT_CASES, type VerdictCase } from './verdict-cases.ts';
export {
  gateRefusal,
  gatesAdmitting,
  type GateRefusal,
  type GateRule,
  type GatesAnswer,
  ticketTypeKey,
} from './gates.ts';
export {
  type EntryContext,
  type EntryJudgement,
  entryOutcome,
  type EntryOutcome,
  judgeEntry,
  RULE_REFUSALS,
  type RuleRefusalReason,
  exitOutcome,
  type ExitOutcome,
  holderAfter,
  type HolderState,
  type TicketFacts,
} from './ticket-rules.ts';
export {
  MAX_SCANS_PER_UPLOAD,
  SCAN_ACTIONS,
  type ScanAction,
  type ScanUpload,
  type ScanUploadAnnul,
  type ScanUploadAnswer,
  type ScanUploadItem,
  type ScanUploadResult,
  UPLOAD_BODY_LIMIT_BYTES,
} from './scan-batch.ts';
export {
  type EventCalendar,
  type EventDays,
  eventDayOf,
  eventDaysOf,
  eventDayStart,
  hourStartOf,
  type Hours,
  hoursInOrder,
  isCalendarDate,
  isKnownTimezone,
  isLocalTime,
  localTimeOf,
  withinEventDays,
  withinHours,
} from './event-days.ts';
export { spelledZone } from './zone-clock.ts';
export { canonicalZone } from './zone-names.ts';
export {
  DEFAULT_EVENT_RULES,
  defaultTicketTypeRules,
  type EntryTiming,
  type EventRules,
  gateNotes,
  type GateNotes,
  reentryMode,
  type ReentryMode,
  type RuleRefusal,
  rulesFor,
  type TicketTypeRules,
} from './entry-rules.ts';
export { autoExitedBefore, holderAtScan, latestOf, missedAutoExit } from './auto-exit.ts';
export { caseTypeRules, ENTRY_RULE_CASES, type EntryRuleCase } from './entry-rule-cases.ts';

export {
  ANNUL_CASES,
  ANNUL_REFUSALS,
  type AnnulCase,
  type AnnulFacts,
  annulOutcome,
  type AnnulRefusal,
  type AnnulRequestBody,
  DEFAULT_ANNUL_WINDOW_S,
  holderAfterAnnul,
  withinAnnulWindow,
} from './annul.ts';
export {
  CROCKFORD_ALPHABET,
  normalShortCode,
  SHORT_CODE_LENGTH,
  shortCodeDigest,
  shownShortCode,
} from './short-codes.ts';
export { searchKey, searchWords } from './search-key.ts';
