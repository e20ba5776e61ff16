/**
 * The **Sound** toggle button: pressed while verdicts make a sound. Its state is the Feedback's, kept
 * on the device, so a phone muted for a quiet venue stays muted after a reload.
 */
import type { Feedback } from './feedback.ts';

export function bindSoundSwitch(button: HTMLButtonElement, feedback: Feedback): void {
  // The word on or off beside the name, hidden from screen readers: aria-pressed says it to them.
  const state = document.createElement('span');
  state.className = 'switch-state';
  state.setAttribute('aria-hidden', 'true');
  button.append(' ', state);
  const show = () => {
    button.setAttribute('aria-pressed', String(feedback.sound));
    state.textContent = feedback.sound ? 'on' : 'off';
  };
  show();
  button.addEventListener('click', () => {
    feedback.sound = !feedback.sound;
    // Switching sound on is a tap: the browser lets the page play from now on.
    if (feedback.sound) feedback.unlock();
    show();
  });
}
