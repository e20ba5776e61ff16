/**
 * The verdict area: one verdict at a time in the contract's words, a running count of admits (kept
 * across reloads) so that two holders let in one after the other are told apart, and back to a neutral "Ready" after a few
 * seconds, or to what the device needs when it cannot scan (enrolment again).
 */
import type { ScanResult } from '@ticket-issuer/scanner';
import { verdictText, type VerdictContext, type VerdictText } from './verdict-text.ts';

/** How long a verdict stays before the area says "Ready" again. */
export const VERDICT_SHOWN_MS = 5000;

/** What the area shows between verdicts. */
export interface IdleState {
  mode: 'entry' | 'exit';
  /** The issuer refused this device's key: it must be enrolled again, and scans nothing until then. */
  keyRejected: boolean;
}

/** A verdict's extras: the device has never synced the feed and the rules (its offline verdicts say so). */
export interface ShowOptions {
  neverSynced: boolean;
}

type Part = [className: string, text: string | null];

/** Where the running count of admits is kept, so that "Admit #N" goes on after a reload. */
const ADMITS_KEY = 'scan.admits';

/** The count kept for the event, or 0 (none kept, another event's, storage unavailable). */
function keptAdmits(eid: string | null): number {
  try {
    const kept = JSON.parse(localStorage.getItem(ADMITS_KEY) ?? 'null') as { eid?: unknown; count?: unknown } | null;
    return kept !== null && kept.eid === eid && Number.isSafeInteger(kept.count) ? (kept.count as number) : 0;
  } catch {
    return 0;
  }
}

export class VerdictView {
  private timer: number | undefined;
  private showing = false;
  private idleState: IdleState = { mode: 'entry', keyRejected: false };

  /** `eventOf`: the event the device is enrolled for now; the count starts again for another one. */
  constructor(
    private readonly element: HTMLElement,
    private readonly eventOf: () => string | null = () => null,
  ) {}

  /** The count, and the event it counts for (read again from storage when the event changed). */
  private counted: { eid: string | null; count: number } | null = null;

  private get admitCount(): number {
    const eid = this.eventOf();
    if (this.counted?.eid !== eid) this.counted = { eid, count: keptAdmits(eid) };
    return this.counted.count;
  }

  private set admitCount(count: number) {
    const eid = this.eventOf();
    this.counted = { eid, count };
    try {
      localStorage.setItem(ADMITS_KEY, JSON.stringify({ eid, count }));
    } catch {
      // No storage (private browsing): the count lives as long as the page.
    }
  }

  /** The admits shown on this device for its event (kept across reloads): the last Admit's number. */
  get admits(): number {
    return this.admitCount;
  }

  /**
   * Shows a verdict (counting admits), then "Ready" again after VERDICT_SHOWN_MS. A ticket judged on
   * a device that never synced carries a notice that it knew no revocation nor earlier entry.
   */
  show(result: ScanResult, context: VerdictContext, options: ShowOptions): VerdictText {
    const text = verdictText(result, context);
    if (text.word === 'Admit') this.admitCount += 1;
    const parts: Part[] = [
      ['reason', text.reason],
      ['who', text.who],
      // A holder who needs attention is told in words, then the texts for the gate, each on its line.
      ['attention', text.attention ? 'Attention' : null],
      ...text.notes.map((note): Part => ['checkin-text', note]),
      ['advice', text.advice],
      ['source', text.source],
    ];
    this.fill(text.tone, text.word, text.word === 'Admit' ? `#${this.admitCount}` : null, parts);
    if (text.attention) this.element.dataset.attention = 'true';
    // The ticket's count of entries, this one included when admitted: what the device and the issuer compare.
    if (result.entries !== undefined) this.element.dataset.entries = String(result.entries);
    const unsynced = options.neverSynced || result.synced === false;
    if (unsynced && result.source === 'offline' && result.tid !== null) {
      this.element.append(' ', neverSyncedNotice());
    }
    this.showing = true;
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.idle(), VERDICT_SHOWN_MS);
    return text;
  }

  /** What to show between verdicts; shown at once when no verdict is up, or when it changed. */
  setIdle(state: IdleState): void {
    const changed = state.mode !== this.idleState.mode || state.keyRejected !== this.idleState.keyRejected;
    this.idleState = state;
    if (!this.showing || changed) this.idle();
  }

  /** Says again, at once, what the area says between verdicts (a scan the device could not make). */
  remind(): void {
    this.idle();
  }

  /** Stops the timer (the view leaves the page). */
  stop(): void {
    window.clearTimeout(this.timer);
  }

  private idle(): void {
    window.clearTimeout(this.timer);
    this.showing = false;
    if (this.idleState.keyRejected) {
      this.fill('blocked', 'Enrol again', null, [
        ['reason', 'This device’s key was revoked or has expired: it scans nothing.'],
        [
          'advice',
          'Ask the organizer for a new setup code, then open its Web scanner QR code on this phone, or scan it with Start camera.',
        ],
      ]);
      return;
    }
    const exit = this.idleState.mode === 'exit';
    this.fill('idle', 'Ready', null, [['reason', exit ? 'Exit: scan holders going out' : 'Scan the next ticket']]);
  }

  private fill(tone: string, word: string, count: string | null, parts: Part[]): void {
    const span = (className: string, value: string) => {
      const element = document.createElement('span');
      element.className = className;
      element.textContent = value;
      return element;
    };
    const headline = span('headline', '');
    headline.append(span('word', word));
    if (count !== null) headline.append(' ', span('count', count));
    // Spaces between the parts: the element's text reads "Admit #3 Ada Lovelace · VIP …".
    const rest = parts.flatMap(([className, value]) => (value ? [' ', span(className, value)] : []));
    this.element.replaceChildren(headline, ...rest);
    this.element.className = `verdict ${tone}`;
    delete this.element.dataset.attention;
    delete this.element.dataset.entries;
  }
}

function neverSyncedNotice(): HTMLElement {
  const notice = document.createElement('span');
  notice.className = 'notice';
  notice.dataset.testid = 'never-synced';
  notice.textContent =
    'Not synced yet: this device does not know which tickets were revoked or already used elsewhere.';
  return notice;
}
