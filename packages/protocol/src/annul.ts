/**
 * Annul: undoing an entry made by mistake (the wrong ticket in a stack, a turnstile that did not
 * turn). One rule for the issuer and a scanner's offline undo: only an entry (a `valid` check-in),
 * only within the window of its scan time, and only while it is the ticket's latest move; the holder
 * then goes back where they were before it.
 *
 *   unused --entry--> inside --annul--> unused
 *   out --re-entry--> inside --annul--> out
 *   inside --entry (re-entry any)--> inside --annul--> inside (one entry fewer)
 */
import type { HolderState } from './ticket-rules.ts';

/** The default of `ANNUL_WINDOW_S`: an entry may be undone up to 15 minutes after its scan. */
export const DEFAULT_ANNUL_WINDOW_S = 900;

/** Why an annul is refused (409 CONFLICT `details.reason`). */
export const ANNUL_REFUSALS = ['not_an_entry', 'window_passed', 'not_latest'] as const;
export type AnnulRefusal = (typeof ANNUL_REFUSALS)[number];

/** What is known of the scan an annul names. */
export interface AnnulFacts {
  /** The scan is a check-in answered `valid` (an entry that counts). */
  isEntry: boolean;
  /** No move of the ticket came after it: no later entry, no exit since. */
  latest: boolean;
  /** The annul's time is at most the window after the entry's scan time (an organizer's: always). */
  withinWindow: boolean;
}

/** The annul's outcome, judged in this order: what the scan was, its time, then the ticket's moves since. */
export function annulOutcome(facts: AnnulFacts): 'annulled' | AnnulRefusal {
  if (!facts.isEntry) return 'not_an_entry';
  if (!facts.withinWindow) return 'window_passed';
  if (!facts.latest) return 'not_latest';
  return 'annulled';
}

/** Whether `annulledAt` is within `windowS` seconds after `scannedAt` (instants as ISO text or Date). */
export function withinAnnulWindow(scannedAt: string | Date, annulledAt: string | Date, windowS: number): boolean {
  return new Date(annulledAt).getTime() - new Date(scannedAt).getTime() <= windowS * 1000;
}

/** Where the holder is after an annul: back where they were before the entry. */
export const holderAfterAnnul = (beforeEntry: HolderState): HolderState => beforeEntry;

/** The body of `POST /api/v1/tickets/check-in/annul`. */
export interface AnnulRequestBody {
  eid: string;
  scanner_id: string;
  idempotency_key: string;
  annulled_at: string;
}

/** One situation of an annul and the outcome it must give (both sides are tested on this table). */
export interface AnnulCase {
  name: string;
  facts: AnnulFacts;
  /** Where the holder was before the entry. */
  beforeEntry: HolderState;
  outcome: 'annulled' | AnnulRefusal;
  /** Where the holder is after the annul (unchanged when it is refused: inside). */
  after: HolderState;
}

const fine: AnnulFacts = { isEntry: true, latest: true, withinWindow: true };

export const ANNUL_CASES: readonly AnnulCase[] = [
  {
    name: 'a first entry undone: the ticket is unused again',
    facts: fine,
    beforeEntry: 'unused',
    outcome: 'annulled',
    after: 'unused',
  },
  {
    name: 'a re-entry undone: the holder is out again',
    facts: fine,
    beforeEntry: 'out',
    outcome: 'annulled',
    after: 'out',
  },
  {
    name: 'a wristband’s entry while inside undone: still inside, one entry fewer',
    facts: fine,
    beforeEntry: 'inside',
    outcome: 'annulled',
    after: 'inside',
  },
  {
    name: 'a scan that was not an entry',
    facts: { ...fine, isEntry: false },
    beforeEntry: 'inside',
    outcome: 'not_an_entry',
    after: 'inside',
  },
  {
    name: 'after the window',
    facts: { ...fine, withinWindow: false },
    beforeEntry: 'unused',
    outcome: 'window_passed',
    after: 'inside',
  },
  {
    name: 'an exit or a later entry since',
    facts: { ...fine, latest: false },
    beforeEntry: 'unused',
    outcome: 'not_latest',
    after: 'inside',
  },
  {
    name: 'not an entry outranks the window and the moves since',
    facts: { isEntry: false, latest: false, withinWindow: false },
    beforeEntry: 'unused',
    outcome: 'not_an_entry',
    after: 'inside',
  },
  {
    name: 'the window outranks the moves since',
    facts: { isEntry: true, latest: false, withinWindow: false },
    beforeEntry: 'unused',
    outcome: 'window_passed',
    after: 'inside',
  },
];
