/**
 * Enrolling from the page: a `#setup=` link opened, a setup code typed in **Setup code** or scanned
 * with **Scan setup code**, or one scanned at the gate; an enrolled device asks before replacing its
 * enrolment.
 */
import { Camera } from './camera.ts';
import type { Device } from './device.ts';
import { byId, messageOf, mount } from './dom.ts';
import { enrolmentProblem } from './enrol-text.ts';
import { askToReplace } from './replace-dialog.ts';
import { isSetupCode, setupUriFrom } from './verdict-text.ts';

export class SetupFlow {
  private camera: Camera | null = null;

  /** `device`: the page's device; `view`: which view the page shows; `changed`: render the device's state. */
  constructor(
    private readonly device: () => Device,
    private readonly view: () => 'setup' | 'scan' | null,
    private readonly changed: () => void,
  ) {}

  /** A `#setup=` link enrols at once (asking first on an enrolled device) and leaves the address. */
  async takeSetupLink(): Promise<void> {
    if (!location.hash.startsWith('#setup=')) return;
    const uri = setupUriFrom(location.hash);
    history.replaceState(null, '', location.pathname + location.search);
    await this.takeSetupCode(uri);
  }

  /** A setup code (a link opened, or a code scanned or typed): enrols, asking first on an enrolled device. */
  async takeSetupCode(uri: string): Promise<void> {
    const device = this.device();
    if (device.enrolled) {
      const { keyRejected } = device.state();
      const current = { eventName: device.eventName, queued: device.queued, keyRejected };
      if (!(await askToReplace(current))) return;
    }
    await this.enrol(uri);
  }

  /** Shows the setup view: **Setup code** with **Enrol**, and **Scan setup code** (camera). */
  show(): void {
    mount('setup-view');
    const form = byId<HTMLFormElement>('setup-form');
    const message = byId('setup-message');
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.enrol(setupUriFrom(byId<HTMLInputElement>('setup-code').value));
    });
    const button = byId<HTMLButtonElement>('scan-setup');
    this.camera = new Camera(byId<HTMLVideoElement>('setup-video'), (code) => {
      if (!isSetupCode(code)) {
        message.textContent = 'That QR code is not a setup code.';
        return;
      }
      this.camera?.stop();
      void this.enrol(setupUriFrom(code));
    });
    button.addEventListener('click', () => {
      message.textContent = '';
      this.camera?.start().catch((error: unknown) => (message.textContent = messageOf(error)));
    });
  }

  /** Stops the setup camera (the view leaves the page). */
  stop(): void {
    this.camera?.stop();
    this.camera = null;
  }

  /** Enrols with a setup URI, and the name typed in **Scanner name** when the setup view shows one. */
  private async enrol(uri: string): Promise<void> {
    const nameField = document.getElementById('scanner-name-field') as HTMLInputElement | null;
    const name = nameField?.value.trim() ?? '';
    if (this.view() === 'setup') byId('setup-message').textContent = 'Enrolling…';
    const device = this.device();
    try {
      await device.enrol(uri, name === '' ? undefined : name);
    } catch (error) {
      this.changed();
      const target = this.view() === 'setup' ? 'setup-message' : 'scan-message';
      byId(target).textContent = enrolmentProblem(error, device.queued);
    }
  }
}
