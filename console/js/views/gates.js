import { may } from '../access.js';
import { api } from '../api.js';
import { field, h, message, replace, uid } from '../dom.js';
import { plural, refusal } from '../words.js';

/** Tickets read to learn the event's ticket types (one page: the types of a large event show early). */
const TYPES_SAMPLE = 1000;

/** Ticket types as typed: comma-separated, trimmed, each once; none means every type. */
export function parseTypes(text) {
  const types = [
    ...new Set(
      text
        .split(',')
        .map((type) => type.trim())
        .filter(Boolean),
    ),
  ];
  return types.length === 0 ? null : types;
}

/**
 * The event's declared gates and an editor: each gate with the ticket types it admits and a
 * **Remove** button, and a form that declares a gate (or changes one, by its id).
 */
export function gateEditor(eid, { onGates = () => {} } = {}) {
  const path = `/events/${encodeURIComponent(eid)}/gates`;
  const list = h('ul', { class: 'gates' });
  let declared = [];
  let counts = [];
  const feedback = h('div');
  const gateId = h('input', { type: 'text', autocomplete: 'off', maxlength: '128', pattern: '[!-~]+', required: true });
  const name = h('input', { type: 'text', autocomplete: 'off', maxlength: '200', required: true });
  const admits = h('input', { type: 'text', autocomplete: 'off', onInput: () => showTypes() });
  const typeBoxes = h('div', { class: 'type-boxes' });
  const typePicker = h(
    'fieldset',
    { class: 'types', hidden: true },
    h('legend', { text: 'Ticket types of this event' }),
    typeBoxes,
  );
  const typeWarning = h('div', { 'aria-live': 'polite' });
  let knownTypes = [];
  const form = h(
    'form',
    { onSubmit: save },
    field('Gate ID', gateId, 'As scanners name it, e.g. vip (no spaces).'),
    field('Gate name', name),
    field('Admitted ticket types', admits, 'Separated by commas, e.g. VIP, Crew. Empty: every type.'),
    typePicker,
    typeWarning,
    h('button', { type: 'submit', text: 'Save gate' }),
  );

  /** The issuer matches admitted types ignoring case and surrounding spaces: so does the picker. */
  const sameType = (a, b) => a.trim().toLowerCase() === b.trim().toLowerCase();

  /** The typed types, and a checkbox per known type that adds it to them or takes it out. */
  function showTypes() {
    const typed = parseTypes(admits.value) ?? [];
    typePicker.hidden = knownTypes.length === 0;
    replace(
      typeBoxes,
      knownTypes.map((type) => {
        const box = h('input', {
          type: 'checkbox',
          id: uid('admits'),
          checked: typed.some((other) => sameType(other, type)),
        });
        box.addEventListener('change', () => pick(type, box.checked));
        return h('div', { class: 'field checkbox' }, box, h('label', { for: box.id, text: type }));
      }),
    );
    replace(typeWarning, typeProblems(typed));
  }

  function pick(type, admitted) {
    const typed = (parseTypes(admits.value) ?? []).filter((other) => !sameType(other, type));
    admits.value = (admitted ? [...typed, type] : typed).join(', ');
    showTypes();
  }

  /** A typed type that no ticket carries, in any case (a typo, or a type not imported yet). */
  function typeProblems(typed) {
    if (knownTypes.length === 0) return null;
    const problems = typed
      .filter((type) => !knownTypes.some((known) => sameType(known, type)))
      .map((type) => `No ticket of this event has the type ${type} yet.`);
    return problems.length === 0 ? null : message('warning', problems.join(' '));
  }

  /** The ticket types the event's tickets carry (and those the gates name), to pick from. */
  async function refreshTypes() {
    const { tickets } = await api('GET', `/events/${encodeURIComponent(eid)}/tickets?limit=${TYPES_SAMPLE}`);
    const named = declared.flatMap((gate) => gate.admits ?? []);
    knownTypes = [...new Set([...tickets.map((ticket) => ticket.ticket_type), ...named])].sort((a, b) =>
      a.localeCompare(b),
    );
    showTypes();
  }

  async function save(event) {
    event.preventDefault();
    const id = gateId.value.trim();
    try {
      await api('PUT', `${path}/${encodeURIComponent(id)}`, {
        name: name.value.trim(),
        admits: parseTypes(admits.value),
      });
      replace(feedback, message('success', `Gate ${id} saved.`));
      form.reset();
      showTypes();
      await refresh();
    } catch (error) {
      replace(feedback, message('error', `Not saved: ${refusal(error)}`));
    }
  }

  async function remove(gate) {
    if (!confirm(`Remove gate ${gate.name}? Scans there are then no longer limited by ticket type.`)) return;
    try {
      await api('DELETE', `${path}/${encodeURIComponent(gate.gate_id)}`);
      replace(feedback, message('success', `Gate ${gate.gate_id} removed.`));
      await refresh();
    } catch (error) {
      replace(feedback, message('error', `Not removed: ${error.message}`));
    }
  }

  async function refresh() {
    declared = (await api('GET', path)).gates;
    onGates(declared);
    render();
  }

  /** Entries and exits per gate, from the occupancy (gates scanned at but not declared included). */
  function showCounts(gateCounts) {
    const next = JSON.stringify(gateCounts);
    if (next === JSON.stringify(counts)) return;
    counts = gateCounts;
    render();
  }

  const countsOf = (gateId) => counts.find((count) => count.gate_id === gateId) ?? { entries: 0, exits: 0 };
  const countLine = (gateId) => {
    const { entries, exits } = countsOf(gateId);
    return h('div', { class: 'small', text: `${plural(entries, 'entry', 'entries')} · ${plural(exits, 'exit')}` });
  };

  function render() {
    const gates = declared;
    const undeclared = counts.filter((count) => !gates.some((gate) => gate.gate_id === count.gate_id));
    const others = undeclared.map((count) =>
      h(
        'li',
        {},
        h('strong', { text: count.gate_id ?? 'No gate named' }),
        h('span', { class: 'muted', text: count.gate_id === null ? '' : ' not declared' }),
        countLine(count.gate_id),
      ),
    );
    if (gates.length === 0) {
      replace(
        list,
        h('li', { class: 'muted', text: 'No gate declared: every gate admits every ticket type.' }),
        others,
      );
      return;
    }
    replace(
      list,
      gates.map((gate) =>
        h(
          'li',
          {},
          h('strong', { text: gate.name }),
          h('span', { class: 'muted', text: ` ${gate.gate_id}` }),
          h('div', {
            class: 'small',
            text: gate.admits === null ? 'Admits every ticket type' : `Admits ${gate.admits.join(', ')}`,
          }),
          countLine(gate.gate_id),
          may('gate.delete', eid) &&
            h('button', {
              type: 'button',
              class: 'danger',
              text: 'Remove',
              'aria-label': `Remove gate ${gate.name}`,
              onClick: () => remove(gate),
            }),
        ),
      ),
      others,
    );
  }

  return {
    // The editor only for a role that may declare gates; everyone sees them and their counts.
    node: h('div', {}, list, may('gate.put', eid) ? form : null, feedback),
    refresh: async () => {
      await refresh();
      await refreshTypes();
    },
    refreshTypes,
    showCounts,
  };
}
