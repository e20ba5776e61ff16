/**
 * The **Undo** bar under the verdict: after an Admit, a button that undoes that entry (the scanner
 * package's annul, online or queued offline), offered for UNDO_SHOWN_MS whether or not the verdict
 * above has cleared to Ready, and withdrawn by the next scan. It names the admit it undoes, so that
 * it is never taken for the next holder's. The answer is said plainly in its own status line.
 */
import { undoFailed, undoWords, type UndoAnswer, type UndoWords } from './undo-text.ts';

/** How long an admit can be undone from the bar (the verdict itself clears after VERDICT_SHOWN_MS). */
export const UNDO_SHOWN_MS = 10_000;

/** The admit the bar offers to undo: its scan's idempotency key and what the verdict said. */
export interface UndoOffer {
  key: string;
  /** "Admit #3 · Ada Lovelace · General admission". */
  what: string;
}

/** Undoes the entry made under this key: the scanner package's answer, or a thrown device error. */
export type UndoAction = (key: string) => Promise<UndoAnswer>;

export class UndoBar {
  private offered: UndoOffer | null = null;
  private pending: string | null = null;
  private timer: number | undefined;
  private focusBefore: HTMLElement | null = null;
  private readonly offerLine: HTMLElement;
  private readonly what: HTMLElement;
  private readonly button: HTMLButtonElement;
  private readonly result: HTMLElement;

  /** `undone`: called once an entry is undone or queued to be (the verdict area then stops showing it). */
  constructor(
    element: HTMLElement,
    private readonly undo: UndoAction,
    private readonly undone: (key: string) => void,
  ) {
    this.offerLine = document.createElement('div');
    this.offerLine.className = 'undo-offer';
    this.offerLine.hidden = true;
    this.what = document.createElement('span');
    this.what.className = 'undo-what';
    this.button = document.createElement('button');
    this.button.type = 'button';
    this.button.className = 'undo-button';
    this.button.textContent = 'Undo';
    this.button.addEventListener('click', () => void this.take());
    // Where the focus was before the tap (the Ticket code field of a barcode gun): it goes back there.
    this.button.addEventListener('focus', (event) => {
      this.focusBefore = event.relatedTarget instanceof HTMLElement ? event.relatedTarget : null;
    });
    this.offerLine.append(this.what, this.button);
    // A live region present from the start, so that its answers are announced.
    this.result = document.createElement('p');
    this.result.className = 'undo-result';
    this.result.setAttribute('role', 'status');
    this.result.dataset.testid = 'undo-result';
    element.replaceChildren(this.offerLine, this.result);
  }

  /** Offers to undo this admit (withdrawing any earlier offer and answer) for UNDO_SHOWN_MS. */
  offer(offer: UndoOffer): void {
    this.clear();
    this.offered = offer;
    this.what.textContent = offer.what;
    this.button.removeAttribute('aria-disabled');
    this.button.textContent = 'Undo';
    this.offerLine.hidden = false;
    this.timer = window.setTimeout(() => this.clear(), UNDO_SHOWN_MS);
  }

  /** The next scan: no offer, no answer shown (an undo under way still says how it ended). */
  clear(): void {
    window.clearTimeout(this.timer);
    this.offered = null;
    this.hideOffer();
    this.say(null);
  }

  /** Stops the timer (the view leaves the page). */
  stop(): void {
    window.clearTimeout(this.timer);
  }

  private async take(): Promise<void> {
    const offer = this.offered;
    if (offer === null || this.pending !== null) return;
    this.pending = offer.key;
    // Not `disabled`: a disabled button loses the focus, which then could not go back where it was.
    this.button.setAttribute('aria-disabled', 'true');
    this.button.textContent = 'Undoing…';
    let words: UndoWords;
    try {
      words = undoWords(await this.undo(offer.key), offer.what);
    } catch (error) {
      words = undoFailed(offer.what, error instanceof Error ? error.message : String(error));
    } finally {
      this.pending = null;
    }
    // The offer is spent whatever the answer (a refusal will not change by asking again); the answer
    // stays as long as an offer would, unless the next scan comes first. Once a scan came, the verdict
    // above is that scan's: only the answer's line speaks of the undone entry.
    const current = this.offered === offer;
    if (current && words.outcome !== 'refused') this.undone(offer.key);
    if (current || this.offered === null) {
      window.clearTimeout(this.timer);
      this.offered = null;
      this.hideOffer();
      this.timer = window.setTimeout(() => this.clear(), UNDO_SHOWN_MS);
    }
    this.say(words);
  }

  /** Hides the button; a focus it held goes back where it was before (else it would be lost). */
  private hideOffer(): void {
    const hadFocus = document.activeElement === this.button;
    this.offerLine.hidden = true;
    if (hadFocus && this.focusBefore?.isConnected) this.focusBefore.focus({ preventScroll: true });
  }

  private say(words: UndoWords | null): void {
    this.result.textContent = words?.text ?? '';
    if (words) this.result.dataset.outcome = words.outcome;
    else delete this.result.dataset.outcome;
  }
}
