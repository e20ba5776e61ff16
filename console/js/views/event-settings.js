import { api } from '../api.js';
import { field, h, message, replace, uid } from '../dom.js';
import { fieldProblems } from '../field-problems.js';
import { timeZones } from '../rule-words.js';

/** The browser's zones, listed once for every event page. */
let zoneOptions = null;

/**
 * The event's entry rules: re-entry (a holder who went out may come in again), the capacity the
 * **Inside now** counter warns near, and its calendar: the time zone its days and hours are read in,
 * the local time each event day starts at, and the automatic exit at that moment. Saved with
 * `PATCH /admin/v1/events/{eid}`; `onSaved` gets the event.
 */
export function eventSettings(event, onSaved) {
  const feedback = h('div');
  const reentry = h('input', { type: 'checkbox', id: `reentry-${event.eid}` });
  reentry.checked = event.reentry === true;
  const capacity = h('input', { type: 'number', min: '1', max: '10000000', step: '1', inputmode: 'numeric' });
  capacity.value = event.capacity === null || event.capacity === undefined ? '' : String(event.capacity);
  zoneOptions ??= timeZones();
  const zoneList = h(
    'datalist',
    { id: uid('zones') },
    zoneOptions.map((zone) => h('option', { value: zone })),
  );
  const timezone = h('input', {
    type: 'text',
    autocomplete: 'off',
    spellcheck: 'false',
    maxlength: '64',
    list: zoneList.id,
    value: event.timezone ?? 'UTC',
  });
  const dayStart = h('input', { type: 'time', required: true, value: event.day_starts_at ?? '00:00' });
  const autoExit = h('input', { type: 'checkbox', id: `auto-exit-${event.eid}`, checked: event.auto_exit === true });
  const reentryField = h(
    'div',
    { class: 'field checkbox' },
    reentry,
    h('label', { for: reentry.id, text: 'Let holders who went out back in (re-entry)' }),
  );
  const autoExitField = h(
    'div',
    { class: 'field checkbox' },
    autoExit,
    h('label', { for: autoExit.id, text: 'Count everyone out when a day starts (automatic exit)' }),
  );
  const problems = fieldProblems([
    { fields: ['reentry'], label: 'Re-entry', controls: [reentry], at: reentryField },
    { fields: ['capacity'], label: 'Capacity', controls: [capacity], at: capacity },
    { fields: ['timezone'], label: 'Time zone', controls: [timezone], at: timezone },
    { fields: ['day_starts_at'], label: 'Day starts at', controls: [dayStart], at: dayStart },
    { fields: ['auto_exit'], label: 'Automatic exit', controls: [autoExit], at: autoExitField },
  ]);
  const form = h(
    'form',
    { onSubmit: save },
    reentryField,
    field('Capacity', capacity, 'How many may be inside at once; the console warns from 90 %. Empty: none.'),
    field('Time zone', timezone, 'Where the event takes place, e.g. Europe/Berlin: its days and hours are read there.'),
    zoneList,
    field('Day starts at', dayStart, 'Local time each event day starts; a night until then belongs to the day before.'),
    autoExitField,
    h('button', { type: 'submit', text: 'Save entry rules' }),
  );

  async function save(submitted) {
    submitted.preventDefault();
    const text = capacity.value.trim();
    try {
      const saved = await api('PATCH', `/events/${encodeURIComponent(event.eid)}`, {
        reentry: reentry.checked,
        capacity: text === '' ? null : Number(text),
        timezone: timezone.value.trim(),
        day_starts_at: dayStart.value,
        auto_exit: autoExit.checked,
      });
      problems.clear();
      timezone.value = saved.timezone;
      replace(feedback, message('success', 'Entry rules saved.'));
      onSaved(saved);
    } catch (error) {
      problems.show(feedback, 'Entry rules not saved:', error);
    }
  }

  return h('div', {}, form, feedback);
}
