import { api } from '../api.js';
import { field, h, message, replace, uid } from '../dom.js';
import { eventNames, readAll } from '../pages.js';
import { inviteLinkPanel } from './invite-link.js';
import { personAccess } from './person-access.js';
import { personRow } from './person-row.js';

/** The issuer's field problems of an invitation, in words. */
const FIELD_WORDS = {
  email: 'The email address is not valid.',
  name: 'The name is missing or too long.',
  role: 'The role is not one of owner, manager, supervisor or viewer.',
  events: 'An event chosen does not exist (any more).',
};

function inviteRefusal(error) {
  if (error.status === 409) return 'Someone here already has that email address.';
  const known = (error.details?.fields ?? []).map((problem) => FIELD_WORDS[problem.field]).filter(Boolean);
  return known.length > 0 ? [...new Set(known)].join(' ') : error.message;
}

/** A section with its heading, labelled by it. */
function section(title, ...children) {
  const id = uid('section');
  return h('section', { 'aria-labelledby': id }, h('h2', { id, text: title }), ...children);
}

/**
 * People (owners only): who may use the console and with which role, and the form that invites
 * someone: the answer's one-time `invite_url` is shown to copy and hand over.
 */
export async function peopleView(main) {
  document.title = 'People · Organizer console';
  const [names, people] = await Promise.all([eventNames(), readAll('/users', 'users')]);
  const list = h('ul', { class: 'people', 'aria-label': 'People' });
  const invited = h('div');
  const email = h('input', { type: 'email', autocomplete: 'off', maxlength: '254', required: true });
  const name = h('input', { type: 'text', autocomplete: 'off', maxlength: '200', required: true });
  const access = personAccess(names);
  const button = h('button', { type: 'submit', text: 'Invite' });
  const form = h('form', { onSubmit: invite }, field('Email', email), field('Name', name), access.node, button);

  function show(all) {
    if (all.length === 0) return replace(list, h('li', { class: 'muted', text: 'Nobody yet but the admin token.' }));
    // The people who may sign in first, then the disabled ones; by name within each.
    const ordered = [...all].sort(
      (a, b) => Number(a.disabled) - Number(b.disabled) || (a.name || a.email).localeCompare(b.name || b.email),
    );
    replace(
      list,
      ordered.map((person) => personRow(person, names, () => undefined)),
    );
  }

  async function invite(event) {
    event.preventDefault();
    const value = access.value();
    if (value.problem) return replace(invited, message('error', value.problem));
    button.disabled = true;
    try {
      const created = await api('POST', '/users', {
        email: email.value.trim(),
        name: name.value.trim(),
        role: value.role,
        ...(value.events === null ? {} : { events: value.events }),
      });
      form.reset();
      access.refresh();
      replace(invited, inviteLinkPanel(created, created.invite_url));
      invited.querySelector('button')?.focus();
      show(await readAll('/users', 'users'));
    } catch (error) {
      replace(invited, message('error', `Not invited: ${inviteRefusal(error)}`));
    } finally {
      button.disabled = false;
    }
  }

  replace(
    main,
    h('h1', { tabindex: '-1', text: 'People' }),
    h('p', {
      class: 'muted',
      text: 'Everyone who runs events signs in as themselves; their role says what the console offers them. The admin token stays the built-in owner, for scripts and recovery.',
    }),
    section('Invite a person', form, invited),
    section('Everyone', list),
  );
  show(people);
}
