import { ROLES } from '../access.js';
import { field, h, message, uid } from '../dom.js';

/** What each role may do, as the People page explains it. */
export const ROLE_WORDS = {
  owner: 'Owner: everything, people included',
  manager: 'Manager: events, tickets, gates, scanners, webhooks and keys; not people',
  supervisor: 'Supervisor: its events: read, revoke tickets and scanners, set up scanners, annul entries',
  viewer: 'Viewer: its events, read only',
};

/** Roles whose access is limited to the events chosen for them. */
export const SCOPED = new Set(['supervisor', 'viewer']);

/** A person's events in words: "All events", or their names (an event not visible: its eid). */
export function eventsText(events, names) {
  if (events === null || events === undefined) return 'All events';
  if (events.length === 0) return 'No events';
  return events.map((eid) => names.get(eid) ?? eid).join(', ');
}

/**
 * The role of a person and, for a supervisor or viewer, their events (**All events**, or some of
 * them): the invitation form and a person's editor use it. `names`: eid → name of every event;
 * `person`: the current role and events, if any. `value()` is `{role, events}`, or a sentence saying
 * what is missing.
 */
export function personAccess(names, person = { role: 'viewer', events: [] }) {
  const role = h(
    'select',
    { name: 'role', onChange: () => showEvents() },
    // The role given is the default, so that resetting the form comes back to it.
    ROLES.map((name) => h('option', { value: name, text: ROLE_WORDS[name], selected: name === person.role })),
  );
  const all = h('input', { type: 'checkbox', id: uid('all-events'), checked: person.events === null });
  const boxes = [...names].map(([eid, name]) => {
    const box = h('input', {
      type: 'checkbox',
      id: uid('event'),
      value: eid,
      checked: Array.isArray(person.events) && person.events.includes(eid),
    });
    return { box, node: h('div', { class: 'field checkbox' }, box, h('label', { for: box.id, text: name })) };
  });
  all.addEventListener('change', () => showEvents());
  const eventsPart = h(
    'fieldset',
    { class: 'types events-choice' },
    h('legend', { text: 'Events' }),
    h('div', { class: 'field checkbox' }, all, h('label', { for: all.id, text: 'All events' })),
    boxes.map((choice) => choice.node),
    boxes.length === 0 ? h('p', { class: 'hint', text: 'No events yet.' }) : null,
  );

  function showEvents() {
    eventsPart.hidden = !SCOPED.has(role.value);
    for (const choice of boxes) choice.box.disabled = all.checked;
  }
  showEvents();

  return {
    node: h('div', {}, field('Role', role), eventsPart),
    /** `{role, events}` for the issuer, or `{problem}` when a scoped person has no event chosen. */
    value() {
      if (!SCOPED.has(role.value)) return { role: role.value, events: null };
      if (all.checked) return { role: role.value, events: null };
      const events = boxes.filter((choice) => choice.box.checked).map((choice) => choice.box.value);
      if (events.length === 0) return { problem: 'Choose the events of this person, or All events.' };
      return { role: role.value, events };
    },
    focus: () => role.focus(),
    /** Shows the events part as the role now says (after the form was reset). */
    refresh: () => showEvents(),
  };
}

/** A problem of the form, as an alert. */
export const formProblem = (text) => message('error', text);
