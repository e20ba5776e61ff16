import { api } from '../api.js';
import { field, h, replace, uid } from '../dom.js';
import { fieldProblems } from '../field-problems.js';
import { eventDayOf, nextDay } from '../rule-words.js';

/** The admin API's limits: a label, a check-in text. */
const MAX_LABEL = 100;
const MAX_CHECKIN_TEXT = 200;

const REENTRY_CHOICES = [
  ['', 'Event default'],
  ['none', 'None'],
  ['after_exit', 'After an exit'],
  ['any', 'Any time (wristbands, no exit scans)'],
];

const countInput = () => h('input', { type: 'number', min: '1', step: '1', inputmode: 'numeric' });
const countOf = (input) => (input.value.trim() === '' ? null : Number(input.value));
const countText = (value) => (value === null || value === undefined ? '' : String(value));

/**
 * The editor of one ticket type's rules, shown when asked for: `declare` opens it on a new type, `edit`
 * on a type's rules (its label then stays); saved with `PUT /admin/v1/events/{eid}/ticket-types/{ticket_type}`.
 * Every rule is sent (a field left out would take its default). `event()`: the event as last saved (its
 * calendar); `labels()`: the labels the event knows; `onSaved` gets the type as the issuer answered it
 * (the form has closed); `onClosed` is called whenever it closes.
 */
export function ticketTypeForm(eid, { event, labels, onSaved, onClosed }) {
  const headingId = uid('type-form');
  const heading = h('h3', { id: headingId, tabindex: '-1' });
  const labelList = h('datalist', { id: uid('labels') });
  const label = h('input', {
    type: 'text',
    autocomplete: 'off',
    maxlength: String(MAX_LABEL),
    required: true,
    list: labelList.id,
  });
  const days = h('div', { class: 'day-rows' });
  const addDay = h('button', { type: 'button', class: 'secondary', text: 'Add a day', onClick: () => add() });
  const daysHint = h('p', { class: 'hint', id: uid('days-hint'), text: 'None: every day of the event.' });
  const daysGroup = h(
    'fieldset',
    { class: 'rule-group', 'aria-describedby': daysHint.id },
    h('legend', { text: 'Valid days' }),
    days,
    addDay,
    daysHint,
  );
  const from = h('input', { type: 'time' });
  const until = h('input', { type: 'time' });
  const hoursHint = h('p', { class: 'hint', id: uid('hours-hint') });
  const hoursGroup = h(
    'fieldset',
    { class: 'rule-group', 'aria-describedby': hoursHint.id },
    h('legend', { text: 'Hours' }),
    h('div', { class: 'pair' }, field('From', from), field('Until', until)),
    hoursHint,
  );
  const maxEntries = countInput();
  const maxPerDay = countInput();
  const maxDays = countInput();
  const reentry = h(
    'select',
    {},
    REENTRY_CHOICES.map(([value, text]) => h('option', { value, text })),
  );
  const gap = countInput();
  const attention = h('input', { type: 'checkbox', id: uid('type-attention') });
  const text = h('input', { type: 'text', autocomplete: 'off', maxlength: String(MAX_CHECKIN_TEXT) });
  const feedback = h('div');
  const cancel = h('button', { type: 'button', class: 'secondary', text: 'Cancel', onClick: () => close() });

  const fieldNodes = {
    label: field('Ticket type', label, 'The label as the tickets carry it (case and spaces aside).'),
    maxEntries: field('Max entries', maxEntries, 'Entries in all, re-entries included. Empty: no limit.'),
    maxPerDay: field('Max entries per day', maxPerDay, 'Entries per event day. Empty: no limit.'),
    maxDays: field(
      'Max days',
      maxDays,
      'Event days it may enter on, any of them ("any 2 days of 3"); coming back on a day used does not count. Empty: no limit.',
    ),
    reentry: field('Re-entry', reentry, 'Whether a holder may come in again; the event default is its setting above.'),
    gap: field('Minutes between entries', gap, 'Since the last entry. Empty: no wait.'),
    text: field('Check-in text', text, `Shown at the gate (at most ${MAX_CHECKIN_TEXT} characters). Empty: none.`),
  };
  const attentionNode = h(
    'div',
    { class: 'field checkbox' },
    attention,
    h('label', { for: attention.id, text: 'Needs attention at the gate' }),
  );
  const problems = fieldProblems([
    { fields: ['ticket_type'], label: 'Ticket type', controls: [label], at: label },
    { fields: ['valid_days'], label: 'Valid days', controls: [], at: addDay },
    { fields: ['hours.from'], label: 'From', controls: [from], at: from },
    { fields: ['hours.until'], label: 'Until', controls: [until], at: until },
    { fields: ['hours'], label: 'Hours', controls: [from, until], at: hoursGroup.querySelector('.pair') },
    { fields: ['max_entries'], label: 'Max entries', controls: [maxEntries], at: maxEntries },
    { fields: ['max_entries_per_day'], label: 'Max entries per day', controls: [maxPerDay], at: maxPerDay },
    { fields: ['max_days'], label: 'Max days', controls: [maxDays], at: maxDays },
    { fields: ['reentry'], label: 'Re-entry', controls: [reentry], at: reentry },
    { fields: ['min_minutes_between_entries'], label: 'Minutes between entries', controls: [gap], at: gap },
    { fields: ['attention'], label: 'Attention', controls: [attention], at: attentionNode },
    { fields: ['checkin_text'], label: 'Check-in text', controls: [text], at: text },
  ]);

  const form = h(
    'form',
    { class: 'type-form', 'aria-labelledby': headingId, hidden: true, onSubmit: save },
    heading,
    fieldNodes.label,
    labelList,
    daysGroup,
    hoursGroup,
    h('div', { class: 'pair' }, fieldNodes.maxEntries, fieldNodes.maxPerDay),
    fieldNodes.maxDays,
    fieldNodes.reentry,
    fieldNodes.gap,
    attentionNode,
    fieldNodes.text,
    h('div', { class: 'actions' }, h('button', { type: 'submit', text: 'Save ticket type' }), cancel),
    feedback,
  );

  /** The valid days as dates, one input each, with its own Remove button. */
  function showDays(dates) {
    replace(
      days,
      dates.map((date, i) => {
        const input = h('input', { type: 'date', value: date, class: 'day' });
        return h(
          'div',
          { class: 'day-row' },
          field(`Valid day ${i + 1}`, input),
          h('button', {
            type: 'button',
            class: 'secondary',
            text: 'Remove',
            'aria-label': `Remove valid day ${i + 1}`,
            onClick: () => showDays(typedDays().filter((_, j) => j !== i)),
          }),
        );
      }),
    );
  }

  const typedDays = () => [...days.querySelectorAll('input.day')].map((input) => input.value);

  /** Adds a day: the one after the last listed, or the event's first day. */
  function add() {
    const listed = typedDays().filter(Boolean);
    const { event_date: start, timezone, day_starts_at: dayStart } = event();
    showDays([...typedDays(), listed.length > 0 ? nextDay(listed.at(-1)) : eventDayOf(start, timezone, dayStart)]);
    days.querySelector('.day-row:last-child input')?.focus();
  }

  function showCalendar() {
    const { timezone, day_starts_at: dayStart } = event();
    hoursHint.textContent =
      `Local times in ${timezone}, within an event day (it starts at ${dayStart}): a scan at From is in, ` +
      'one at Until is not. Empty: all day.';
  }

  /** Opens the form on a new type. */
  function declare() {
    reset();
    form.hidden = false;
    label.focus();
  }

  /** Opens the form on a type's rules, to change them; its label stays as it is. */
  function edit(type) {
    reset();
    heading.textContent = `${type.declared ? 'Change' : 'Declare'} ticket type ${type.ticket_type}`;
    label.value = type.ticket_type;
    label.readOnly = true;
    showDays(type.valid_days ?? []);
    from.value = type.hours?.from ?? '';
    until.value = type.hours?.until ?? '';
    maxEntries.value = countText(type.max_entries);
    maxPerDay.value = countText(type.max_entries_per_day);
    maxDays.value = countText(type.max_days);
    reentry.value = type.reentry ?? '';
    gap.value = countText(type.min_minutes_between_entries);
    attention.checked = type.attention === true;
    text.value = type.checkin_text ?? '';
    form.hidden = false;
    heading.focus();
  }

  /** Closes the form, its problems cleared; `onClosed` takes the focus somewhere useful. */
  function close() {
    reset();
    form.hidden = true;
    onClosed();
  }

  /** An empty form that declares a new type. */
  function reset() {
    form.reset();
    problems.clear();
    replace(feedback);
    heading.textContent = 'Declare a ticket type';
    label.readOnly = false;
    showDays([]);
    showCalendar();
    showLabels();
  }

  /** The labels the event knows, offered as the form's Ticket type is typed. */
  function showLabels() {
    replace(
      labelList,
      labels().map((known) => h('option', { value: known })),
    );
  }

  async function save(submitted) {
    submitted.preventDefault();
    const name = label.value.trim();
    const typed = typedDays();
    const body = {
      valid_days: typed.length === 0 ? null : typed,
      hours: from.value === '' && until.value === '' ? null : { from: from.value, until: until.value },
      max_entries: countOf(maxEntries),
      max_entries_per_day: countOf(maxPerDay),
      max_days: countOf(maxDays),
      reentry: reentry.value === '' ? null : reentry.value,
      min_minutes_between_entries: countOf(gap),
      attention: attention.checked,
      checkin_text: text.value.trim() === '' ? null : text.value.trim(),
    };
    try {
      const saved = await api(
        'PUT',
        `/events/${encodeURIComponent(eid)}/ticket-types/${encodeURIComponent(name)}`,
        body,
      );
      close();
      onSaved(saved);
    } catch (error) {
      problems.show(feedback, `Ticket type ${name} not saved:`, error);
    }
  }

  reset();
  return { node: form, declare, edit, close, showCalendar, showLabels };
}
