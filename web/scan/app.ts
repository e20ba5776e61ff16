/**
 * The gate scanner's page: enrolment, the camera and the **Ticket code** field, the verdict screen,
 * and the sync status. Every decision is the scanner package's (see device.ts); this file only
 * shows what it says.
 */
import { readToken, type ScanResult } from '@ticket-issuer/scanner';
import { Camera } from './camera.ts';
import { Device, type DeviceState } from './device.ts';
import { enrolmentProblem } from './enrol-text.ts';
import { Feedback } from './feedback.ts';
import { formatWhen, setupUriFrom } from './verdict-text.ts';
import { VerdictView } from './verdict-view.ts';

const byId = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
};

/** Shows the template's content as the page's main part (what is not shown is not in the page). */
function mount(templateId: string): void {
  const template = byId<HTMLTemplateElement>(templateId);
  byId('main').replaceChildren(template.content.cloneNode(true));
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

class ScanPage {
  private view: 'setup' | 'scan' | null = null;
  private camera: Camera | null = null;
  private setupCamera: Camera | null = null;
  private scanning: Promise<unknown> = Promise.resolve();
  private mode: 'entry' | 'exit' = 'entry';
  private readonly feedback = new Feedback();
  private verdict: VerdictView | null = null;
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
    addEventListener('hashchange', () => void this.takeSetupLink());
    await this.takeSetupLink();
  }

  /** A `#setup=` link enrols at once (asking first on an enrolled device) and leaves the address. */
  private async takeSetupLink(): Promise<void> {
    if (!location.hash.startsWith('#setup=')) return;
    const uri = setupUriFrom(location.hash);
    history.replaceState(null, '', location.pathname + location.search);
    if (this.device.enrolled && !(await this.confirmReplace())) return;
    await this.enrol(uri);
  }

  private confirmReplace(): Promise<boolean> {
    const dialog = byId<HTMLDialogElement>('replace-dialog');
    const queued = this.device.queued;
    byId('replace-text').textContent =
      `This device is enrolled for “${this.device.eventName ?? 'an event'}”. The new setup code replaces that enrolment` +
      (queued > 0 ? `; its ${queued} waiting scans sync under the new key when the event is the same.` : '.');
    dialog.returnValue = '';
    dialog.showModal();
    return new Promise((resolve) =>
      dialog.addEventListener('close', () => resolve(dialog.returnValue === 'replace'), { once: true }),
    );
  }

  /** Enrols with a setup URI, and the name typed in **Scanner name** when the setup view shows one. */
  private async enrol(uri: string): Promise<void> {
    const nameField = document.getElementById('scanner-name-field') as HTMLInputElement | null;
    const name = nameField?.value.trim() ?? '';
    if (this.view === 'setup') byId('setup-message').textContent = 'Enrolling…';
    try {
      await this.device.enrol(uri, name === '' ? undefined : name);
    } catch (error) {
      this.render(this.device.state());
      const target = this.view === 'setup' ? 'setup-message' : 'scan-message';
      byId(target).textContent = enrolmentProblem(error, this.device.queued);
    }
  }

  private render(state: DeviceState): void {
    const network = byId('network');
    network.textContent = state.online ? 'Online' : 'Offline';
    network.classList.toggle('online', state.online);
    byId('event').textContent = state.eventName
      ? `${state.eventName}${state.gate ? ` · gate ${state.gate}` : ''}`
      : 'Not enrolled';
    const scannerName = byId('scanner-name');
    scannerName.textContent = state.enrolled && state.scannerName ? `Scanner: ${state.scannerName}` : '';
    scannerName.hidden = scannerName.textContent === '';
    const view = state.enrolled ? 'scan' : 'setup';
    if (view !== this.view) {
      this.camera?.stop();
      this.setupCamera?.stop();
      this.verdict?.stop();
      this.verdict = null;
      this.view = view;
      if (view === 'scan') this.showScan();
      else this.showSetup();
      this.showMode();
    }
    if (view === 'scan') this.renderStatus(state);
  }

  private showSetup(): void {
    mount('setup-view');
    const form = byId<HTMLFormElement>('setup-form');
    const message = byId('setup-message');
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.enrol(setupUriFrom(byId<HTMLInputElement>('setup-code').value));
    });
    const button = byId<HTMLButtonElement>('scan-setup');
    this.setupCamera = new Camera(byId<HTMLVideoElement>('setup-video'), (code) => {
      if (!setupUriFrom(code).startsWith('ticket-issuer://enroll')) {
        message.textContent = 'That QR code is not a setup code.';
        return;
      }
      this.setupCamera?.stop();
      void this.enrol(setupUriFrom(code));
    });
    button.addEventListener('click', () => {
      message.textContent = '';
      this.setupCamera?.start().catch((error: unknown) => (message.textContent = messageOf(error)));
    });
  }

  private showScan(): void {
    mount('scan-view');
    const cameraButton = byId<HTMLButtonElement>('camera');
    const message = byId('scan-message');
    this.camera = new Camera(byId<HTMLVideoElement>('video'), (code) => void this.check(code));
    cameraButton.addEventListener('click', () => {
      this.feedback.unlock();
      message.textContent = '';
      if (this.camera?.running) {
        this.camera.stop();
        cameraButton.textContent = 'Start camera';
        return;
      }
      cameraButton.textContent = 'Stop camera';
      this.camera?.start().catch((error: unknown) => {
        cameraButton.textContent = 'Start camera';
        message.textContent = messageOf(error);
      });
    });
    byId<HTMLFormElement>('check-form').addEventListener('submit', (event) => {
      event.preventDefault();
      this.feedback.unlock();
      const input = byId<HTMLInputElement>('ticket-code');
      const code = input.value.trim();
      if (code === '') return;
      input.value = '';
      void this.check(code);
    });
    this.verdict = new VerdictView(byId('verdict'));
    const modes = { entry: byId<HTMLButtonElement>('mode-entry'), exit: byId<HTMLButtonElement>('mode-exit') };
    const choose = (mode: 'entry' | 'exit') => {
      this.mode = mode;
      modes.entry.setAttribute('aria-pressed', String(mode === 'entry'));
      modes.exit.setAttribute('aria-pressed', String(mode === 'exit'));
      this.showMode();
    };
    choose(this.mode);
    modes.entry.addEventListener('click', () => choose('entry'));
    modes.exit.addEventListener('click', () => choose('exit'));
    byId('sync-now').addEventListener('click', () => void this.device.sync());
    byId('forget').addEventListener('click', () => void this.forget());
  }

  /** One code at a time, in the order they came: each verdict shows once its scan is stored. */
  private check(code: string): Promise<unknown> {
    this.scanning = this.scanning.then(async () => {
      const message = byId('scan-message');
      message.textContent = '';
      try {
        this.showVerdict(await this.device.scan(code, this.mode), code);
      } catch (error) {
        message.textContent = messageOf(error);
      }
    });
    return this.scanning;
  }

  /** The verdict, with what the device knows beside it (its gate, the ticket's type, where it went in). */
  private showVerdict(result: ScanResult, code: string): void {
    const state = this.device.state();
    const text = this.verdict?.show(result, {
      gate: state.gate,
      tokenType: ticketTypeIn(code),
      ...this.device.ticketFacts(result.tid),
    });
    if (text) this.feedback.give(text.tone !== 'reject');
  }

  /** Exit mode shows unmistakably: the header's label and colour, and the verdict area's. */
  private showMode(): void {
    const exit = this.view === 'scan' && this.mode === 'exit';
    document.body.classList.toggle('exit-mode', exit);
    byId('mode-label').hidden = !exit;
    this.verdict?.setIdle({ mode: this.mode });
  }

  private renderStatus(state: DeviceState): void {
    byId('queued').textContent = String(state.queued);
    const lastSync = byId('last-sync');
    lastSync.textContent = state.lastSyncAt ? formatWhen(state.lastSyncAt) : 'never';
    if (state.lastSyncAt) lastSync.setAttribute('datetime', state.lastSyncAt);
    const syncButton = byId<HTMLButtonElement>('sync-now');
    syncButton.disabled = state.syncing;
    byId('sync-message').textContent = state.syncing ? 'Syncing…' : (state.problem ?? '');
    byId('device-text').textContent = state.scannerName
      ? `Enrolled as “${state.scannerName}”.`
      : 'Enrolled; the issuer named this device.';
    const forget = byId<HTMLButtonElement>('forget');
    forget.disabled = state.queued > 0;
    byId('forget-message').textContent =
      state.queued > 0
        ? `${state.queued === 1 ? '1 scan waits' : `${state.queued} scans wait`} for the issuer: sync before forgetting this device.`
        : '';
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

function alertParagraph(text: string): HTMLParagraphElement {
  const p = document.createElement('p');
  p.setAttribute('role', 'alert');
  p.className = 'message';
  p.textContent = text;
  return p;
}

if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('sw.js', { scope: './' }).catch(() => undefined);
}
void new ScanPage().start();
