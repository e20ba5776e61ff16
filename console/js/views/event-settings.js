import { api } from '../api.js';
import { field, h, message, replace } from '../dom.js';
import { refusal } from '../words.js';

/**
 * The event's entry rules: re-entry (a holder who went out may come in again) and the capacity the
 * **Inside now** counter warns near. Saved with `PATCH /admin/v1/events/{eid}`; `onSaved` gets the event.
 */
export function eventSettings(event, onSaved) {
  const feedback = h('div');
  const reentry = h('input', { type: 'checkbox' });
  reentry.checked = event.reentry === true;
  const capacity = h('input', { type: 'number', min: '1', max: '10000000', step: '1', inputmode: 'numeric' });
  capacity.value = event.capacity === null || event.capacity === undefined ? '' : String(event.capacity);
  reentry.id = `reentry-${event.eid}`;
  const form = h(
    'form',
    { onSubmit: save },
    h(
      'div',
      { class: 'field checkbox' },
      reentry,
      h('label', { for: reentry.id, text: 'Let holders who went out back in (re-entry)' }),
    ),
    field('Capacity', capacity, 'How many may be inside at once; the console warns from 90 %. Empty: none.'),
    h('button', { type: 'submit', text: 'Save entry rules' }),
  );

  async function save(submitted) {
    submitted.preventDefault();
    const text = capacity.value.trim();
    try {
      const saved = await api('PATCH', `/events/${encodeURIComponent(event.eid)}`, {
        reentry: reentry.checked,
        capacity: text === '' ? null : Number(text),
      });
      replace(feedback, message('success', 'Entry rules saved.'));
      onSaved(saved);
    } catch (error) {
      replace(feedback, message('error', `Not saved: ${refusal(error)}`));
    }
  }

  return h('div', {}, form, feedback);
}
