/**
 * The question before a setup code replaces this device's enrolment. Keep is the answer offered first
 * (focused, so Enter takes it), unless the issuer refused the device's key: then Replace is.
 */
import { byId } from './dom.ts';

/** What the question says of the current enrolment. */
export interface CurrentEnrolment {
  eventName: string | null;
  queued: number;
  keyRejected: boolean;
}

/** Shows the dialog; true when the answer was to replace. */
export function askToReplace(current: CurrentEnrolment): Promise<boolean> {
  const dialog = byId<HTMLDialogElement>('replace-dialog');
  const event = current.eventName ?? 'an event';
  const rejected = current.keyRejected;
  const was = rejected
    ? `This device’s key for “${event}” is no longer accepted (revoked or expired): it must be enrolled again.`
    : `This device is enrolled for “${event}”.`;
  const queued = current.queued;
  byId('replace-text').textContent =
    `${was} The new setup code replaces that enrolment` +
    (queued > 0 ? `; its ${queued} waiting scans sync under the new key when the event is the same.` : '.');
  byId('replace-keep').autofocus = !rejected;
  byId('replace-confirm').autofocus = rejected;
  dialog.classList.toggle('replace-first', rejected);
  dialog.returnValue = '';
  dialog.showModal();
  return new Promise((resolve) =>
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'replace'), { once: true }),
  );
}
