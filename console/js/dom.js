/**
 * A tiny element builder: the console is plain ES modules without a build step, and every text goes
 * in through textContent, never innerHTML, so data from the API cannot inject markup.
 */

/**
 * Creates an element. `props`: `class`, `text`, `on<Event>` handlers, DOM properties that must be set
 * as properties (`value`, `checked`, `disabled`, `hidden`), anything else as an attribute.
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') element.className = value;
    else if (name === 'text') element.textContent = value;
    else if (name.startsWith('on')) element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (['value', 'checked', 'disabled', 'hidden'].includes(name)) element[name] = value;
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

/** Appends children, skipping null/false and flattening arrays; strings become text. */
export function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

/** Replaces all children of `parent`. */
export function replace(parent, ...children) {
  parent.replaceChildren();
  return append(parent, children);
}

/** A page-unique id for label/aria wiring. */
let counter = 0;
export const uid = (prefix) => `${prefix}-${++counter}`;

/** A labelled form field: the label, then the control. */
export function field(labelText, control, hint) {
  control.id ||= uid('field');
  const hintNode = hint ? h('p', { class: 'hint', id: `${control.id}-hint`, text: hint }) : null;
  if (hintNode) control.setAttribute('aria-describedby', hintNode.id);
  return h('div', { class: 'field' }, h('label', { for: control.id, text: labelText }), control, hintNode);
}

/** Dates and times: one format for the whole console (see time.js). */
export { when } from './time.js';

/** A message the user must notice (role="alert"), or a polite status (role="status"). */
export function message(kind, ...children) {
  return h('div', { class: `message ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, ...children);
}
