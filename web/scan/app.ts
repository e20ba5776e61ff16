/**
 * The gate scanner's page: enrolment, the camera and the **Ticket code** field, the verdict screen,
 * and the sync status. Every decision is the scanner package's (see device.ts); this file only
 * shows what it says.
 */
import { readToken, type AnnulResult, type FoundHolder, type ScanResult } from '@ticket-issuer/scanner';
import { Camera } from './camera.ts';
import { Device, type DeviceState } from './device.ts';
import { alertParagraph, byId, messageOf, mount } from './dom.ts';
import { Feedback, toneFor } from './feedback.ts';
import { bindCameraButton, bindModes, bindTicketField } from './scan-controls.ts';
import { SetupFlow } from './setup-flow.ts';
import { bindSoundSwitch } from './sound-switch.ts';
import { renderHeader, renderStatus } from './status-view.ts';
import { UndoBar } from './undo-bar.ts';
import { FindByName } from './find-by-name.ts';
import { GroupPanel } from './group-panel.ts';
import { refusalBeforehand } from './holder-text.ts';
import { isSetupCode, setupUriFrom } from './verdict-text.ts';
import { VerdictView } from './verdict-view.ts';

class ScanPage {
  private view: 'setup' | 'scan' | null = null;
  private camera: Camera | null = null;
  private readonly setup = new SetupFlow(
    () => this.device,
    () => this.view,
    () => this.render(this.device.state()),
  );
  private scanning: Promise<unknown> = Promise.resolve();
  private mode: 'entry' | 'exit' = 'entry';
  private readonly feedback = new Feedback();
  private verdict: VerdictView | null = null;
  private undo: UndoBar | null = null;
  private finder: FindByName | null = null;
  private groupPanel: GroupPanel | null = null;
  /** The key may find holders by name (the device's last state). */
  private allowSearch = false;
  /** What the device said last (the page renders before `device` is assigned, while it opens). */
  private keyRejected = false;
  private device!: Device;

  async start(): Promise<void> {
    try {
      this.device = await Device.open((state) => this.render(state));
    } catch (error) {
      byId('main').replaceChildren(alertParagraph(`The scanner cannot open its storage: ${messageOf(error)}`));
      return;
    }
    this.render(this.device.state());
    // A setup link opened while the page is open changes only the fragment: no new load.
    addEventListener('hashchange', () => void this.setup.takeSetupLink());
    await this.setup.takeSetupLink();
  }

  private render(state: DeviceState): void {
    this.keyRejected = state.keyRejected;
    this.allowSearch = state.allowSearch;
    renderHeader(state);
    const view = state.enrolled ? 'scan' : 'setup';
    if (view !== this.view) {
      this.camera?.stop();
      this.setup.stop();
      this.verdict?.stop();
      this.verdict = null;
      this.undo?.stop();
      this.undo = null;
      this.finder?.stop();
      this.finder = null;
      this.view = view;
      if (view === 'scan') this.showScan();
      else this.setup.show();
      this.showMode();
    }
    if (view === 'scan') {
      renderStatus(state);
      this.finder?.show(this.allowSearch && this.mode === 'entry');
      this.verdict?.setIdle({ mode: this.mode, keyRejected: state.keyRejected });
    }
  }

  private showScan(): void {
    mount('scan-view');
    const unlock = () => this.feedback.unlock();
    this.camera = new Camera(byId<HTMLVideoElement>('video'), (code) => void this.check(code));
    bindCameraButton(this.camera, unlock);
    bindTicketField((code) => void this.check(code), unlock);
    bindSoundSwitch(byId<HTMLButtonElement>('sound'), this.feedback);
    this.verdict = new VerdictView(byId('verdict'), () => this.device.eventId);
    this.groupPanel = new GroupPanel(byId('group'), {
      group: (tid) => this.device.group(tid),
      checkIn: (members) => this.checkInGroup(members),
    });
    this.finder = new FindByName(byId('check-form'), {
      search: (q) => this.device.findHolders(q),
      choose: (holder) => this.checkInByName(holder),
      refusal: (holder) => this.refusalOf(holder),
    });
    // An entry undone (or queued to be) no longer shows as an Admit.
    this.undo = new UndoBar(
      byId('undo'),
      (key) => this.undoEntry(key),
      () => this.verdict?.remind(),
    );
    bindModes(this.mode, (mode) => {
      this.mode = mode;
      this.showMode();
    });
    byId('sync-now').addEventListener('click', () => void this.device.sync());
    byId('forget').addEventListener('click', () => void this.forget());
  }

  /**
   * One code at a time, in the order they came: each verdict shows once its scan is stored. A setup
   * code enrols (asking first); a device whose key was refused scans no ticket until enrolled again.
   */
  private check(code: string): Promise<unknown> {
    this.scanning = this.scanning.then(async () => {
      const message = byId('scan-message');
      message.textContent = '';
      if (isSetupCode(code)) return this.setup.takeSetupCode(setupUriFrom(code));
      if (this.device.state().keyRejected) return this.refuseScan();
      try {
        this.showVerdict(await this.device.scan(code, this.mode), code);
      } catch (error) {
        this.render(this.device.state());
        if (this.device.state().keyRejected) this.refuseScan();
        else message.textContent = messageOf(error);
      }
    });
    return this.scanning;
  }

  /** The verdict, with what the device knows beside it (its gate, the ticket's type, where it went in). */
  private showVerdict(result: ScanResult, code: string): void {
    const state = this.device.state();
    const context = { gate: state.gate, tokenType: ticketTypeIn(code), ...this.device.ticketFacts(result.tid) };
    const text = this.verdict?.show(result, context, { neverSynced: !state.synced });
    if (!text) return;
    // The whole verdict on screen, whatever was scrolled to before it (the field, a list of names).
    byId('verdict').scrollIntoView({ block: 'nearest' });
    this.feedback.give(toneFor(text));
    // An admit may be undone for a while; any other verdict withdraws the Undo of the admit before it.
    const key = result.idempotency_key;
    if (text.word !== 'Admit' || key === null) this.undo?.clear();
    else this.undo?.offer({ key, what: [`Admit #${this.verdict?.admits}`, text.who].filter(Boolean).join(' · ') });
    // An admit offers the rest of the ticket's group; any other verdict withdraws the offer.
    if (text.word === 'Admit' && result.tid !== null) {
      void this.groupPanel?.offer(result.tid);
    } else this.groupPanel?.clear();
  }

  /** **Check in group**: the chosen members, in turn with the scans, one check-in each. */
  private checkInGroup(members: FoundHolder[]): Promise<ScanResult[]> {
    const done = this.scanning.then(() => this.device.checkInGroup(members));
    this.scanning = done.catch(() => this.render(this.device.state()));
    return done;
  }

  /** **Undo**: in turn with the scans, so that it follows the scan it undoes. */
  private undoEntry(key: string): Promise<AnnulResult> {
    const undone = this.scanning.then(() => this.device.annul(key));
    this.scanning = undone.catch(() => this.render(this.device.state()));
    return undone;
  }

  /** A holder chosen from **Find by name**: checked in manually, in turn with the scans; its verdict as a scan's. */
  private checkInByName(holder: FoundHolder): Promise<void> {
    const done = this.scanning.then(async () => this.showVerdict(await this.device.checkInManual(holder), ''));
    this.scanning = done.catch(() => this.render(this.device.state()));
    return done;
  }

  /** Why the rules would refuse a holder now, in the verdict screen's words, or null. */
  private refusalOf(holder: FoundHolder): string | null {
    const state = this.device.state();
    const facts = this.device.ticketFacts(holder.tid);
    return refusalBeforehand(this.device.judgeHolder(holder), { gate: state.gate, ...facts });
  }

  /** No verdict: the device must be enrolled again, and the verdict area says so once more. */
  private refuseScan(): void {
    this.verdict?.remind();
    this.undo?.clear();
    this.feedback.give('reject');
  }

  /** Exit mode shows unmistakably: the header's label and colour, and the verdict area's. */
  private showMode(): void {
    const exit = this.view === 'scan' && this.mode === 'exit';
    document.body.classList.toggle('exit-mode', exit);
    byId('mode-label').hidden = !exit;
    this.finder?.show(this.allowSearch && this.view === 'scan' && !exit);
    this.verdict?.setIdle({ mode: this.mode, keyRejected: this.keyRejected });
  }

  private async forget(): Promise<void> {
    if (!confirm('Forget this device? Its key, its enrolment and what it learnt are erased.')) return;
    try {
      this.camera?.stop();
      await this.device.forget();
    } catch (error) {
      byId('forget-message').textContent = messageOf(error);
    }
  }
}

/** The ticket type a ticket token names (unverified: for the words beside a verdict the issuer gave). */
function ticketTypeIn(code: string): string | null {
  const type = readToken(code)?.payload.ticket_type;
  return typeof type === 'string' ? type : null;
}

if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('sw.js', { scope: './' }).catch(() => undefined);
}
void new ScanPage().start();
