import { h, uid } from '../dom.js';

/**
 * Asks before a step that cannot be taken back, in a modal `<dialog>` with the role alertdialog, named
 * by its title and described by its text. Resolves true for the confirming button, false for
 * **Cancel** or Escape. The focus starts on **Cancel**, the harmless choice, and goes back to the
 * control that opened it.
 */
export function askFirst({ title, text, confirm, danger = false }) {
  return new Promise((resolve) => {
    const opener = document.activeElement;
    const titleId = uid('ask');
    const textId = uid('ask-text');
    let confirmed = false;
    const cancel = h('button', { type: 'button', class: 'secondary', text: 'Cancel', onClick: () => dialog.close() });
    const dialog = h(
      'dialog',
      { class: 'ask', role: 'alertdialog', 'aria-labelledby': titleId, 'aria-describedby': textId },
      h('h2', { id: titleId, text: title }),
      h('p', { id: textId, text }),
      h(
        'div',
        { class: 'actions' },
        h('button', {
          type: 'button',
          class: danger ? 'danger' : null,
          text: confirm,
          onClick: () => {
            confirmed = true;
            dialog.close();
          },
        }),
        cancel,
      ),
    );
    dialog.addEventListener('close', () => {
      dialog.remove();
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
      resolve(confirmed);
    });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}
