/**
 * **Find by name**: for a holder whose phone died. Shown only when this device's key may search
 * (`scope.allow_search`) and in Entry mode; searches the issuer as staff type (at least 3 letters or
 * digits, debounced) and lists each holder found as a button (with why the rules would refuse them,
 * if they would), which asks first, then checks that holder in manually (the verdict shows as a scan's).
 * When the issuer does not answer, the holders come from the roster kept on this phone, and the list
 * says so; a phone without one says that finding a holder needs the network.
 */
import {
  type FoundHolder,
  type FoundHolders,
  type HolderSource,
  IssuerHttpError,
  isKeyRejected,
  isTransient,
  MIN_SEARCH_CHARACTERS,
  ScannerError,
  searchLength,
} from '@ticket-issuer/scanner';
import { askToAdmit } from './admit-dialog.ts';
import { holderFacts } from './holder-text.ts';

/** How long typing must pause before the issuer is asked. */
export const SEARCH_DEBOUNCE_MS = 300;

/** What the finder needs from the page. */
export interface FinderHost {
  /** The holders whose name holds `q` (the device's search: the issuer's, else the phone's roster). */
  search(q: string): Promise<FoundHolders>;
  /** Checks the chosen holder in (in turn with the scans) and shows the verdict. */
  choose(holder: FoundHolder): Promise<void>;
  /** Why the rules would refuse the holder now, in words, or null (see `refusalBeforehand`). */
  refusal(holder: FoundHolder): string | null;
}

/** Why a search found nothing to list, in words for gate staff. */
function problemOf(error: unknown): string {
  if (isKeyRejected(error)) return 'This device’s key is revoked or expired: enrol it again.';
  // No answer from the issuer, and no roster of names on this phone to answer instead.
  if (isTransient(error) || (error instanceof ScannerError && error.code === 'ISSUER_UNREACHABLE'))
    return 'The issuer does not answer, and this phone holds no list of holders: finding a holder needs the network. Scan tickets meanwhile.';
  if (error instanceof IssuerHttpError && error.status === 429)
    return 'Too many searches: wait a moment, then type again.';
  if (error instanceof IssuerHttpError && error.status === 403) return 'This device may not find holders by name.';
  return error instanceof Error ? error.message : String(error);
}

/** What a search found, in words; from the phone's roster, said so (the issuer may know more since). */
function foundText(count: number, q: string, source: HolderSource): string {
  const where = source === 'roster' ? ' on the list kept on this phone (offline)' : '';
  if (count === 0) return `No holder’s name holds “${q}”${where}.`;
  return `${count === 1 ? '1 holder' : `${count} holders`} found${where}`;
}

export class FindByName {
  private readonly form: HTMLFormElement;
  private readonly input: HTMLInputElement;
  private readonly status: HTMLElement;
  private readonly list: HTMLUListElement;
  private timer: number | undefined;
  /** The number of the latest search: an answer to an older one is dropped. */
  private asked = 0;
  private busy = false;

  /** Builds the field after `anchor` (the **Ticket code** form), hidden until `show`. */
  constructor(
    anchor: HTMLElement,
    private readonly host: FinderHost,
  ) {
    this.form = document.createElement('form');
    this.form.className = 'field find';
    this.form.hidden = true;
    this.form.setAttribute('role', 'search');
    this.form.innerHTML = `
      <label for="find-name">Find by name</label>
      <input id="find-name" name="find" type="search" autocomplete="off" spellcheck="false"
        aria-describedby="find-hint" aria-controls="find-results" />
      <p id="find-hint" class="hint">For a holder without their ticket: type ${MIN_SEARCH_CHARACTERS} letters or more of the name, then choose them to check them in.</p>
      <p id="find-status" class="message" aria-live="polite"></p>
      <ul id="find-results" class="find-results" aria-label="Holders found"></ul>`;
    anchor.after(this.form);
    this.input = this.form.querySelector<HTMLInputElement>('#find-name')!;
    this.status = this.form.querySelector<HTMLElement>('#find-status')!;
    this.list = this.form.querySelector<HTMLUListElement>('#find-results')!;
    this.input.addEventListener('input', () => this.typed());
    // Enter searches at once (no page load); a list already shown stays.
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      window.clearTimeout(this.timer);
      void this.search();
    });
  }

  /** Shown when the key may search and the page scans entries; hidden (and emptied) otherwise. */
  show(visible: boolean): void {
    if (this.form.hidden === !visible) return;
    this.form.hidden = !visible;
    if (!visible) this.reset();
  }

  /** Stops the pending search (the view leaves the page). */
  stop(): void {
    window.clearTimeout(this.timer);
    this.asked += 1;
  }

  private reset(): void {
    this.stop();
    this.input.value = '';
    this.status.textContent = '';
    this.list.replaceChildren();
  }

  private typed(): void {
    window.clearTimeout(this.timer);
    if (searchLength(this.input.value) < MIN_SEARCH_CHARACTERS) {
      this.asked += 1;
      this.status.textContent = '';
      this.list.replaceChildren();
      return;
    }
    this.timer = window.setTimeout(() => void this.search(), SEARCH_DEBOUNCE_MS);
  }

  private async search(): Promise<void> {
    const q = this.input.value.trim();
    if (searchLength(q) < MIN_SEARCH_CHARACTERS) {
      this.status.textContent = `Type at least ${MIN_SEARCH_CHARACTERS} letters of the name.`;
      return;
    }
    const asked = ++this.asked;
    this.status.textContent = 'Searching…';
    try {
      const { tickets: found, source } = await this.host.search(q);
      if (asked !== this.asked) return;
      this.list.replaceChildren(...found.map((holder) => this.item(holder)));
      this.status.textContent = foundText(found.length, q, source);
    } catch (error) {
      if (asked !== this.asked) return;
      this.list.replaceChildren();
      this.status.textContent = problemOf(error);
    }
  }

  /** One holder as a button: the name, then the type, where they are, and any note for the gate. */
  private item(holder: FoundHolder): HTMLLIElement {
    const li = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'holder';
    if (holder.attention) button.dataset.attention = 'true';
    const facts = holderFacts(holder);
    const line = (className: string, text: string) => {
      const span = document.createElement('span');
      span.className = className;
      span.textContent = text;
      return span;
    };
    button.append(line('holder-name', holder.holder_name), ' ', line('holder-facts', facts.line));
    if (facts.attention !== null) button.append(' ', line('holder-attention', facts.attention));
    // A holder the rules would refuse says why before anyone is chosen.
    const refusal = this.host.refusal(holder);
    if (refusal !== null) {
      button.dataset.refused = 'true';
      button.append(' ', line('refusal-beforehand', refusal));
    }
    button.addEventListener('click', () => void this.choose(holder));
    li.append(button);
    return li;
  }

  /**
   * Asks first (name, type, attention text, and why the rules would refuse); on **Admit** checks the
   * holder in, and the list goes, so that the next holder starts afresh.
   */
  private async choose(holder: FoundHolder): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    const facts = holderFacts(holder);
    const question = {
      name: holder.holder_name,
      type: holder.ticket_type,
      attention: facts.attention,
      refusal: this.host.refusal(holder),
    };
    if (!(await askToAdmit(question))) {
      this.busy = false;
      return;
    }
    for (const button of this.list.querySelectorAll('button')) button.disabled = true;
    try {
      await this.host.choose(holder);
      this.reset();
    } catch (error) {
      this.status.textContent = problemOf(error);
      for (const button of this.list.querySelectorAll('button')) button.disabled = false;
    } finally {
      this.busy = false;
    }
  }
}
