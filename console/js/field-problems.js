import { h, message, replace, uid } from './dom.js';

/**
 * The issuer's 400 names each field it refuses (`details.fields`): each problem is shown under the
 * control it concerns (which is marked invalid and described by it), and all of them in one alert.
 *
 * `slots`: `[{fields, label, controls, at}]`: the API fields a slot answers for (`hours` also takes
 * `hours.from`), the words naming it, the controls to mark, and the element the problem goes after.
 */
export function fieldProblems(slots) {
  let shown = [];

  const slotOf = (name) =>
    slots.find((slot) => slot.fields.some((field) => name === field || name.startsWith(`${field}.`)));

  function clear() {
    for (const { node, controls, id } of shown) {
      node.remove();
      for (const control of controls) {
        control.removeAttribute('aria-invalid');
        const described = (control.getAttribute('aria-describedby') ?? '').split(' ').filter((x) => x && x !== id);
        if (described.length > 0) control.setAttribute('aria-describedby', described.join(' '));
        else control.removeAttribute('aria-describedby');
      }
    }
    shown = [];
  }

  /** Shows the refusal in `feedback`: its field problems next to their fields, and an alert with them all. */
  function show(feedback, lead, error) {
    clear();
    const problems = error?.details?.fields ?? [];
    const lines = problems.map((problem) => {
      const slot = slotOf(problem.field);
      const text = `${slot?.label ?? problem.field}: ${problem.problem}.`;
      if (slot) place(slot, text);
      return text;
    });
    if (lines.length === 0) lines.push(error?.message ?? String(error));
    replace(
      feedback,
      message(
        'error',
        h('p', { text: lead }),
        lines.map((line) => h('p', { text: line })),
      ),
    );
  }

  function place(slot, text) {
    const id = uid('problem');
    const node = h('p', { class: 'field-problem', id, text });
    // After the slot's control, or after the problem already shown there.
    const anchor = shown.filter((one) => one.slot === slot).at(-1)?.node ?? slot.at;
    anchor.after(node);
    for (const control of slot.controls) {
      control.setAttribute('aria-invalid', 'true');
      const described = control.getAttribute('aria-describedby');
      control.setAttribute('aria-describedby', described ? `${described} ${id}` : id);
    }
    shown.push({ slot, node, controls: slot.controls, id });
  }

  return { show, clear };
}
