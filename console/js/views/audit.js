import { may } from '../access.js';
import { api } from '../api.js';
import { field, h, message, replace, when } from '../dom.js';
import { eventNames, readAll } from '../pages.js';

/** Entries per page of the trail. */
const PAGE = 50;

/** How a person proved who they were, in words (the admin token is its own name). */
const VIA = { session: 'signed in', token: 'personal API token', invitation: 'invitation link' };

/** A value of an entry's details in words: a list as its items, an event's eid as its name. */
function valueText(value, names) {
  if (Array.isArray(value)) return value.map((item) => valueText(item, names)).join(', ');
  if (typeof value === 'string') return names.get(value) ?? value;
  return JSON.stringify(value);
}

/** An entry's details, as short "key: value" words (the issuer keeps no secret in them). */
function detailsText(details, names) {
  const pairs = Object.entries(details ?? {}).map(
    ([key, value]) => `${key.replaceAll('_', ' ')}: ${valueText(value, names)}`,
  );
  return pairs.join(' · ');
}

/** One row of the trail: when, who and how, action, target, event, ip (and the details under the action). */
function entryRow(entry, names) {
  const actor = entry.actor ?? {};
  const details = detailsText(entry.details, names);
  const cell = (label, ...children) => h('td', { 'data-label': label }, ...children);
  return h(
    'tr',
    {},
    cell('When', h('time', { datetime: entry.at, title: entry.at, text: when(entry.at) })),
    cell(
      'Who',
      actor.via === 'admin_token'
        ? h('span', { class: 'actor', text: 'Admin token' })
        : [
            h('span', { class: 'actor', text: actor.name ?? 'unknown' }),
            h('span', { class: 'muted small', text: ` (${VIA[actor.via] ?? actor.via ?? '?'})` }),
          ],
    ),
    cell(
      'Action',
      h('code', { text: entry.action }),
      details ? h('div', { class: 'muted small', text: details }) : null,
    ),
    cell('Target', entry.target ? h('code', { text: entry.target }) : '—'),
    cell('Event', entry.eid ? (names.get(entry.eid) ?? entry.eid) : '—'),
    cell('IP', entry.ip ?? '—'),
  );
}

/**
 * The audit trail (owners and managers): every admin write, sign-in, failed sign-in and sign-out,
 * newest first, a page at a time (**Load more**), filtered by event and by person. People are
 * offered by name: to an owner all of them, to a manager those seen in the trail so far.
 */
export async function auditView(main) {
  document.title = 'Audit · Organizer console';
  const [names, people] = await Promise.all([
    eventNames(),
    may('user.read') ? readAll('/users', 'users').catch(() => []) : [],
  ]);
  const known = new Map(people.map((person) => [person.user_id, person.name || person.email]));
  const eventFilter = h(
    'select',
    { onChange: () => load(null) },
    h('option', { value: '', text: 'All events' }),
    [...names].map(([eid, name]) => h('option', { value: eid, text: name })),
  );
  const personFilter = h('select', { onChange: () => load(null) });
  const rows = h('tbody');
  const table = h(
    'table',
    { class: 'audit' },
    h('caption', { class: 'visually-hidden', text: 'Audit entries, newest first' }),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['When', 'Who', 'Action', 'Target', 'Event', 'IP'].map((title) => h('th', { scope: 'col', text: title })),
      ),
    ),
    rows,
  );
  const status = h('p', { class: 'muted', role: 'status' });
  const more = h('div');
  let generation = 0;
  let shown = 0;

  function showPeople() {
    const chosen = personFilter.value;
    const sorted = [...known].sort((a, b) => a[1].localeCompare(b[1]));
    replace(
      personFilter,
      h('option', { value: '', text: 'Everyone' }),
      sorted.map(([userId, name]) => h('option', { value: userId, text: name })),
    );
    personFilter.value = known.has(chosen) ? chosen : '';
  }

  async function load(cursor) {
    const mine = cursor ? generation : ++generation;
    const query = new URLSearchParams({ limit: String(PAGE) });
    if (eventFilter.value) query.set('eid', eventFilter.value);
    if (personFilter.value) query.set('user_id', personFilter.value);
    if (cursor) query.set('cursor', cursor);
    let page;
    try {
      page = await api('GET', `/audit?${query}`);
    } catch (error) {
      if (mine === generation) replace(more, message('error', `The trail could not be read: ${error.message}`));
      return;
    }
    if (mine !== generation) return; // a newer filter was chosen meanwhile
    if (!cursor) {
      replace(rows);
      shown = 0;
    }
    rows.append(...page.entries.map((entry) => entryRow(entry, names)));
    shown += page.entries.length;
    let learned = false;
    for (const { actor } of page.entries) {
      if (actor?.user_id && !known.has(actor.user_id)) {
        known.set(actor.user_id, actor.name);
        learned = true;
      }
    }
    if (learned) showPeople();
    table.hidden = shown === 0;
    status.textContent = shown === 0 ? 'No entries.' : `${shown}${page.has_more ? '+' : ''} entries shown.`;
    replace(
      more,
      page.has_more && page.next_cursor
        ? h('button', {
            type: 'button',
            class: 'secondary load-more',
            text: 'Load more',
            onClick: (event) => {
              event.currentTarget.disabled = true;
              load(page.next_cursor);
            },
          })
        : null,
    );
  }

  showPeople();
  replace(
    main,
    h('h1', { tabindex: '-1', text: 'Audit' }),
    h('p', {
      class: 'muted',
      text: 'Every change made through the admin API, every sign-in, failed sign-in and sign-out: who, how, when and from where. Nobody can change or delete an entry.',
    }),
    h('div', { class: 'filters' }, field('Event', eventFilter), field('Person', personFilter)),
    status,
    h('div', { class: 'audit-wrap' }, table),
    more,
  );
  await load(null);
}
