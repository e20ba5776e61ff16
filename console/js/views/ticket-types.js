import { may } from '../access.js';
import { api } from '../api.js';
import { h, message, replace } from '../dom.js';
import { ATTENTION, ruleWords } from '../rule-words.js';
import { ticketTypeForm } from './ticket-type-form.js';

/**
 * The event's ticket types (`GET /admin/v1/events/{eid}/ticket-types`): every declared one and every
 * other label found on its tickets, each with its entry rules in words, **Change rules** (or **Declare
 * rules**: the editor opens on it) and, for a declared one, **Remove** (`DELETE`, after a confirmation);
 * **New ticket type** opens the editor on a new one. `event`: the
 * event as loaded; `showEvent` takes it again once its settings are saved.
 */
export function ticketTypes(eid, event) {
  const path = `/events/${encodeURIComponent(eid)}/ticket-types`;
  let current = event;
  let types = [];
  // Everyone sees the types and their rules; a role that may not change them is offered no editor.
  const editable = may('ticket_type.put', eid);
  const calendar = h('p', { class: 'hint' });
  const list = h('ul', { class: 'ticket-types', 'aria-label': 'Ticket types of this event' });
  const feedback = h('div');
  const declare = h('button', { type: 'button', text: 'New ticket type', onClick: () => open() });
  const declareRow = h('div', { class: 'actions', hidden: !editable }, declare);
  const form = ticketTypeForm(eid, {
    event: () => current,
    labels: () => types.map((type) => type.ticket_type),
    onSaved: (saved) => {
      replace(feedback, message('success', `Ticket type ${saved.ticket_type} saved.`));
      refresh().catch(() => undefined);
    },
    onClosed: () => {
      declareRow.hidden = false;
      declare.focus();
    },
  });

  /** The editor, on a new type or on `type`; the New ticket type button hides while it is open. */
  function open(type) {
    replace(feedback);
    declareRow.hidden = true;
    if (type) form.edit(type);
    else form.declare();
  }

  function render() {
    calendar.textContent =
      `Days and hours are read in ${current.timezone}; each event day starts at ${current.day_starts_at}. ` +
      (current.ends_at
        ? 'The event has an end: a type without valid days enters from the day of its date to the day of its end. '
        : '') +
      'A type not declared here follows the event’s entry rules.';
    if (types.length === 0) {
      replace(list, h('li', { class: 'muted', text: 'No ticket types yet: import tickets or declare one.' }));
      return;
    }
    replace(list, types.map(item));
  }

  function item(type) {
    const name = type.ticket_type;
    return h(
      'li',
      {},
      h('strong', { text: name }),
      type.declared ? null : h('span', { class: 'muted', text: ' not declared: no rules of its own' }),
      h(
        'ul',
        { class: 'rules small', 'aria-label': `Rules of ${name}` },
        ruleWords(type, current).map((words) =>
          h('li', { text: words, class: words === ATTENTION ? 'attention' : null }),
        ),
      ),
      editable &&
        h(
          'div',
          { class: 'actions' },
          h('button', {
            type: 'button',
            class: 'secondary',
            text: type.declared ? 'Change rules' : 'Declare rules',
            'aria-label': `${type.declared ? 'Change' : 'Declare'} rules of ${name}`,
            onClick: () => open(type),
          }),
          type.declared
            ? h('button', {
                type: 'button',
                class: 'danger',
                text: 'Remove',
                'aria-label': `Remove ticket type ${name}`,
                onClick: () => remove(type),
              })
            : null,
        ),
    );
  }

  async function remove(type) {
    const name = type.ticket_type;
    if (!confirm(`Remove the rules of ${name}? Its tickets then follow the event’s entry rules.`)) return;
    try {
      await api('DELETE', `${path}/${encodeURIComponent(name)}`);
    } catch (error) {
      replace(feedback, message('error', `Ticket type ${name} not removed: ${error.message}`));
      return;
    }
    if (!form.node.hidden) form.close();
    // The list shows the removal before it is announced; a failed reload is left to the next refresh.
    await refresh().catch(() => undefined);
    replace(feedback, message('success', `Ticket type ${name} removed.`));
  }

  async function refresh() {
    types = (await api('GET', path)).ticket_types;
    render();
    form.showLabels();
  }

  render();
  return {
    node: h('div', {}, calendar, list, feedback, declareRow, form.node),
    refresh,
    /** The event as saved now: its zone and day start, its re-entry (what "event default" gives). */
    showEvent(saved) {
      current = saved;
      form.showCalendar();
      render();
    },
  };
}
