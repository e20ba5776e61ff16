/** What an offline scanner's upload changes in an entry's verdict: a holder it turned away, an automatic exit missed. */
import { type EventRules, missedAutoExit } from '@ticket-issuer/protocol';
import type { CheckInVerdict } from '../store/store.ts';

/**
 * A scanner that turned the holder away offline (`admitted_offline: false`) never has its upload
 * become a check-in: where the issuer would have said `valid`, the answer is 409 `CONFLICT`
 * (`turned_away_offline`), the attempt is logged, and the ticket stays unused for its next scan.
 * Every other verdict stands as it is.
 */
export function keepTurnedAway(verdict: CheckInVerdict): CheckInVerdict {
  if (verdict.outcome !== 'valid') return verdict;
  return {
    counted: false,
    outcome: 'turned_away_offline',
    reason: 'the scanner turned the holder away offline; the ticket stays unused',
    move: null,
    answer: {
      http_status: 409,
      body: {
        error: {
          code: 'CONFLICT',
          message: 'this scanner turned the holder away offline, so the scan does not check the ticket in',
          details: { reason: 'turned_away_offline' },
        },
      },
    },
  };
}

/**
 * An entry that puts the holder inside, scanned before a day start that has passed already (an offline
 * entry uploaded late): the automatic exit they missed is made with it (`autoExitAt`), as it was for
 * the holders inside at that start.
 */
export function withMissedAutoExit(
  verdict: CheckInVerdict,
  entries: readonly string[],
  scannedAt: string,
  now: string,
  event: EventRules,
): CheckInVerdict {
  if (verdict.move?.to !== 'inside') return verdict;
  const at = missedAutoExit([...entries, scannedAt], now, event);
  return at === null ? verdict : { ...verdict, autoExitAt: at };
}
