/** The scan view's controls: the camera's button, the **Ticket code** field, and the mode buttons. */
import type { Camera } from './camera.ts';
import { byId, messageOf } from './dom.ts';

/** **Start camera** / **Stop camera**: `before` runs first on each press (sound unlocked, message cleared). */
export function bindCameraButton(camera: Camera, before: () => void): void {
  const button = byId<HTMLButtonElement>('camera');
  const message = byId('scan-message');
  button.addEventListener('click', () => {
    before();
    message.textContent = '';
    if (camera.running) {
      camera.stop();
      button.textContent = 'Start camera';
      return;
    }
    button.textContent = 'Stop camera';
    camera.start().catch((error: unknown) => {
      button.textContent = 'Start camera';
      message.textContent = messageOf(error);
    });
  });
}

/**
 * **Ticket code** with **Check** (or Enter): `check` gets the code typed; `before` runs first on each
 * check (sound unlocked).
 */
export function bindTicketField(check: (code: string) => void, before: () => void): void {
  byId<HTMLFormElement>('check-form').addEventListener('submit', (event) => {
    event.preventDefault();
    before();
    const input = byId<HTMLInputElement>('ticket-code');
    const code = input.value.trim();
    // A barcode gun types the next code into the same field: it is emptied and keeps the focus,
    // without scrolling the page to it (on a phone that would push the verdict off the screen).
    input.value = '';
    input.focus({ preventScroll: true });
    if (code !== '') check(code);
  });
}

/** **Entry** and **Exit**, one pressed at a time: `chose` gets each choice, the first one at once. */
export function bindModes(initial: 'entry' | 'exit', chose: (mode: 'entry' | 'exit') => void): void {
  const modes = { entry: byId<HTMLButtonElement>('mode-entry'), exit: byId<HTMLButtonElement>('mode-exit') };
  const choose = (mode: 'entry' | 'exit') => {
    modes.entry.setAttribute('aria-pressed', String(mode === 'entry'));
    modes.exit.setAttribute('aria-pressed', String(mode === 'exit'));
    chose(mode);
  };
  choose(initial);
  modes.entry.addEventListener('click', () => choose('entry'));
  modes.exit.addEventListener('click', () => choose('exit'));
}
