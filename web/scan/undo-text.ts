/**
 * What the **Undo** bar says about an undo's answer: done by the issuer, queued on the device until
 * it answers again, or refused with the reason in words for gate staff. Pure, so that it is tested
 * without a browser.
 */

/** The fields of the scanner package's AnnulResult that the words need: annulled, or refused and why. */
export type UndoAnswer =
  { annulled: true; source: 'issuer' | 'queued' } | { annulled: false; reason: string; message?: string };

/** How an undo ended: its look (and `data-outcome`), and what to say. */
export interface UndoWords {
  outcome: 'undone' | 'queued' | 'refused';
  text: string;
}

/** The refusals' words: the annul rule's reasons, the issuer's codes, and the device's own. */
const REFUSAL_WORDS: Record<string, string> = {
  window_passed: 'too late: the entry was scanned too long ago to be undone here',
  not_latest: 'the ticket moved since (an exit or a later entry)',
  not_an_entry: 'that scan did not let anyone in',
  NOT_FOUND: 'no entry made by this device was found for it',
  not_found: 'no entry made by this device was found for it',
  FORBIDDEN: 'this device may not undo it',
  UNAUTHORIZED: 'this device’s key is revoked or expired',
};

/** "Entry undone: Admit #3 · Ada Lovelace", or why not, for the entry `what` names. */
export function undoWords(answer: UndoAnswer, what: string): UndoWords {
  if (answer.annulled && answer.source === 'issuer') {
    return { outcome: 'undone', text: `Entry undone: ${what}.` };
  }
  if (answer.annulled) {
    return { outcome: 'queued', text: `Undo queued — will be sent when online: ${what}.` };
  }
  const why = REFUSAL_WORDS[answer.reason] ?? answer.message ?? 'the issuer refused it';
  return { outcome: 'refused', text: `Not undone: ${why}. The entry stands: ${what}.` };
}

/** An undo that failed without an answer (a device error): said plainly, the entry still stands. */
export function undoFailed(what: string, message: string): UndoWords {
  return { outcome: 'refused', text: `Not undone: ${message}. The entry stands: ${what}.` };
}
