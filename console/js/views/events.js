import { may } from '../access.js';
import { api } from '../api.js';
import { field, h, message, replace, uid, when } from '../dom.js';
import { timeZones } from '../rule-words.js';
import { browserZone, instantIn } from '../time.js';
import { refusal } from '../words.js';

/** The list of events, and the form that creates one. */
export async function eventsView(main) {
  document.title = 'Events · Organizer console';
  const list = h('ul', { class: 'events' });
  const more = h('div');
  const formSlot = h('div', { id: 'new-event-form' });
  const toggle = h('button', {
    type: 'button',
    'aria-expanded': 'false',
    'aria-controls': 'new-event-form',
    text: 'New event',
    onClick: () => {
      const open = toggle.getAttribute('aria-expanded') !== 'true';
      toggle.setAttribute('aria-expanded', String(open));
      replace(formSlot, open ? newEventForm() : null);
      formSlot.querySelector('input')?.focus();
    },
  });
  replace(
    main,
    h('div', { class: 'title-row' }, h('h1', { tabindex: '-1', text: 'Events' }), may('event.create') && toggle),
    formSlot,
    list,
    more,
  );
  await loadPage(null);

  async function loadPage(cursor) {
    const query = cursor ? `?cursor=${encodeURIComponent(cursor)}` : '';
    const { events, next_cursor: next } = await api('GET', `/events${query}`);
    if (!cursor && events.length === 0) list.replaceWith(h('p', { text: 'No events yet: create the first one.' }));
    list.append(...events.map(eventItem));
    replace(
      more,
      next
        ? h('button', { type: 'button', class: 'secondary', text: 'More events', onClick: () => loadPage(next) })
        : null,
    );
  }
}

function eventItem(event) {
  return h(
    'li',
    {},
    h('a', { href: `#/events/${encodeURIComponent(event.eid)}`, text: event.name }),
    h('span', { class: 'muted', text: ` ${when(event.event_date)}` }),
  );
}

/**
 * Name, date and time zone (and an optional end); creating leads to the new event's page. The zone
 * starts as the browser's and stands beside the date: the dates typed are read in it, and the event's
 * days and hours keep it.
 */
function newEventForm() {
  const name = h('input', { type: 'text', required: true, maxlength: '200', autocomplete: 'off' });
  const date = h('input', { type: 'datetime-local', required: true });
  const ends = h('input', { type: 'datetime-local' });
  const zoneList = h(
    'datalist',
    { id: uid('zones') },
    timeZones().map((zone) => h('option', { value: zone })),
  );
  const zone = h('input', {
    type: 'text',
    required: true,
    autocomplete: 'off',
    spellcheck: 'false',
    maxlength: '64',
    list: zoneList.id,
    value: browserZone(),
  });
  const problem = h('div');
  return h(
    'form',
    { class: 'card', onSubmit: submit },
    h('h2', { text: 'New event' }),
    field('Name', name),
    h(
      'div',
      { class: 'date-zone' },
      field('Event date', date, 'In the time zone beside it.'),
      field('Time zone', zone, 'Your browser’s zone to start with.'),
      zoneList,
    ),
    field('Ends at (optional)', ends, 'In the same zone. Scanner keys stay valid until 24 hours after the end.'),
    h('button', { type: 'submit', text: 'Create event' }),
    problem,
  );

  async function submit(submitEvent) {
    submitEvent.preventDefault();
    replace(problem);
    const timezone = zone.value.trim();
    let times;
    try {
      times = {
        event_date: instantIn(date.value, timezone),
        ...(ends.value ? { ends_at: instantIn(ends.value, timezone) } : {}),
      };
    } catch {
      // A zone the browser does not know: the issuer names the field.
      times = { event_date: new Date(date.value).toISOString() };
    }
    try {
      const event = await api('POST', '/events', { name: name.value.trim(), ...times, timezone });
      location.hash = `#/events/${encodeURIComponent(event.eid)}`;
    } catch (error) {
      replace(problem, message('error', `The event was not created: ${refusal(error)}`));
    }
  }
}
