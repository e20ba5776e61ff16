import { api } from '../api.js';
import { field, h, message, replace } from '../dom.js';

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
export function gateEditor(eid) {
  const path = `/events/${encodeURIComponent(eid)}/gates`;
  const list = h('ul', { class: 'gates' });
  const feedback = h('div');
  const gateId = h('input', { type: 'text', autocomplete: 'off', maxlength: '128', pattern: '[!-~]+', required: true });
  const name = h('input', { type: 'text', autocomplete: 'off', maxlength: '200', required: true });
  const admits = h('input', { type: 'text', autocomplete: 'off' });
  const form = h(
    'form',
    { onSubmit: save },
    field('Gate ID', gateId, 'As scanners name it, e.g. vip (no spaces).'),
    field('Gate name', name),
    field('Admitted ticket types', admits, 'Separated by commas, e.g. VIP, Crew. Empty: every type.'),
    h('button', { type: 'submit', text: 'Save gate' }),
  );

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
      await refresh();
    } catch (error) {
      replace(feedback, message('error', `Not saved: ${error.message}`));
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
    const { gates } = await api('GET', path);
    if (gates.length === 0) {
      replace(list, h('li', { class: 'muted', text: 'No gate declared: every gate admits every ticket type.' }));
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
          h('button', {
            type: 'button',
            class: 'danger',
            text: 'Remove',
            'aria-label': `Remove gate ${gate.name}`,
            onClick: () => remove(gate),
          }),
        ),
      ),
    );
  }

  return { node: h('div', {}, list, form, feedback), refresh };
}
