import { api } from '../api.js';
import { field, h, message, replace, uid, when } from '../dom.js';
import { refusal } from '../words.js';

/** The most characters of a check-in text (the admin API's limit). */
const MAX_CHECKIN_TEXT = 200;

/** What a ticket row says of its entry window and notes for the gate, or null when it has none. */
export function notesSummary(ticket) {
  const parts = [
    ticket.valid_from ? h('span', { text: `Valid from ${when(ticket.valid_from)}` }) : null,
    ticket.attention ? h('strong', { class: 'attention', text: 'Attention at the gate' }) : null,
    ticket.checkin_text ? h('span', { text: `Check-in text: ${ticket.checkin_text}` }) : null,
  ].filter(Boolean);
  if (parts.length === 0) return null;
  return h(
    'div',
    { class: 'notes small' },
    parts.flatMap((part, i) => (i === 0 ? [part] : [' · ', part])),
  );
}

/**
 * The notes gate staff see when they scan a ticket: an attention mark and a short text. Saved with
 * `PATCH /admin/v1/tickets/{tid}`; scanners learn them at their next sync, offline ones included.
 * `onSaved` gets the ticket as the issuer answered it.
 */
export function notesEditor(ticket, onSaved, onCancel) {
  const attention = h('input', { type: 'checkbox', id: uid('attention'), checked: ticket.attention === true });
  const text = h('input', {
    type: 'text',
    maxlength: String(MAX_CHECKIN_TEXT),
    autocomplete: 'off',
    value: ticket.checkin_text ?? '',
  });
  const feedback = h('div');

  async function save(submitted) {
    submitted.preventDefault();
    try {
      const saved = await api('PATCH', `/tickets/${encodeURIComponent(ticket.tid)}`, {
        attention: attention.checked,
        checkin_text: text.value.trim() === '' ? null : text.value.trim(),
      });
      onSaved(saved);
    } catch (error) {
      replace(feedback, message('error', `Not saved: ${refusal(error)}`));
    }
  }

  return h(
    'form',
    { class: 'notes-editor', 'aria-label': `Gate notes of ${ticket.holder_name}`, onSubmit: save },
    h(
      'div',
      { class: 'field checkbox' },
      attention,
      h('label', { for: attention.id, text: 'Needs attention at the gate' }),
    ),
    field(
      'Check-in text',
      text,
      `Shown at the gate when this ticket is scanned (at most ${MAX_CHECKIN_TEXT} characters). Empty: none.`,
    ),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', text: 'Save notes' }),
      h('button', { type: 'button', class: 'secondary', text: 'Cancel', onClick: onCancel }),
    ),
    feedback,
  );
}
