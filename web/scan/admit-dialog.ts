/**
 * The question before a holder found by name is checked in: their name, ticket type and any attention
 * text, and why the rules would refuse them if they would; **Admit** or **Cancel** (focused first, so
 * that a stray Enter admits nobody).
 */
import { byId } from './dom.ts';

/** What the question shows of the holder. */
export interface AdmitQuestion {
  name: string;
  type: string;
  /** "Attention: …" or the gate's texts, or null. */
  attention: string | null;
  /** Why the rules would refuse them now, or null. */
  refusal: string | null;
}

/** Shows the dialog; true when the answer was **Admit**. */
export function askToAdmit(question: AdmitQuestion): Promise<boolean> {
  const dialog = byId<HTMLDialogElement>('admit-dialog');
  byId('admit-name').textContent = question.name;
  byId('admit-type').textContent = question.type;
  const attention = byId('admit-attention');
  attention.textContent = question.attention ?? '';
  attention.hidden = question.attention === null;
  const refusal = byId('admit-refusal');
  refusal.textContent = question.refusal ?? '';
  refusal.hidden = question.refusal === null;
  byId('admit-cancel').autofocus = true;
  dialog.returnValue = '';
  dialog.showModal();
  return new Promise((resolve) =>
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'admit'), { once: true }),
  );
}
