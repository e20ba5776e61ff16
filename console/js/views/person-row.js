import { signedIn } from '../access.js';
import { api } from '../api.js';
import { h, message, replace } from '../dom.js';
import { invitationText, newLinkWarning } from '../words.js';
import { askFirst } from './ask-first.js';
import { inviteLinkPanel } from './invite-link.js';
import { eventsText, personAccess } from './person-access.js';

/** A person's name as the page says it: their name, else their email. */
const nameOf = (person) => person.name || person.email;

/**
 * One person of the People page: name, email, role, events, disabled or not, where their invitation
 * stands, and what an owner does with them: **Change role** (role and events), **Disable** / **Enable**,
 * **New invitation link** (after a confirmation: it ends the open link). One's own role and access are
 * not offered (an owner cannot lock themselves out by a slip). `onChanged` gets the person as the
 * issuer answered.
 */
export function personRow(initial, names, onChanged) {
  let person = initial;
  const item = h('li', { class: 'person' });
  const editor = h('div');
  const feedback = h('div');

  function render() {
    const self = signedIn().user?.user_id === person.user_id;
    const name = nameOf(person);
    replace(
      item,
      h(
        'div',
        { class: 'who' },
        h('strong', { text: name }),
        self ? h('span', { class: 'muted', text: ' (you)' }) : null,
        person.disabled ? [' ', h('span', { class: 'state state-revoked', text: 'disabled' })] : null,
        ' ',
        h('span', {
          class: `state state-invitation-${person.invitation ?? 'none'}`,
          text: invitationText(person.invitation),
        }),
      ),
      h('div', { class: 'small' }, h('span', { class: 'email', text: person.email })),
      h('div', { class: 'small', text: `Role: ${person.role} · Events: ${eventsText(person.events, names)}` }),
      self
        ? null
        : h(
            'div',
            { class: 'actions' },
            person.disabled
              ? null
              : h('button', {
                  type: 'button',
                  class: 'secondary',
                  text: 'Change role',
                  'aria-label': `Change role of ${name}`,
                  'aria-expanded': String(editor.childElementCount > 0),
                  onClick: () => edit(),
                }),
            person.disabled
              ? null
              : h('button', {
                  type: 'button',
                  class: 'secondary',
                  text: 'New invitation link',
                  'aria-label': `New invitation link for ${name}`,
                  onClick: () => invite(),
                }),
            h('button', {
              type: 'button',
              class: person.disabled ? 'secondary' : 'danger',
              text: person.disabled ? 'Enable' : 'Disable',
              'aria-label': `${person.disabled ? 'Enable' : 'Disable'} ${name}`,
              onClick: () => setDisabled(!person.disabled),
            }),
          ),
      editor,
      feedback,
    );
  }

  async function change(body, success) {
    try {
      person = await api('PATCH', `/users/${encodeURIComponent(person.user_id)}`, body);
      replace(editor);
      render();
      replace(feedback, message('success', success));
      onChanged(person);
      return true;
    } catch (error) {
      replace(feedback, message('error', `Not changed: ${error.message}`));
      return false;
    }
  }

  function edit() {
    replace(feedback);
    if (editor.childElementCount > 0) {
      replace(editor);
      return render();
    }
    const access = personAccess(names, person);
    const problem = h('div');
    const form = h(
      'form',
      {
        class: 'person-editor',
        'aria-label': `Role and events of ${nameOf(person)}`,
        onSubmit: async (event) => {
          event.preventDefault();
          const value = access.value();
          if (value.problem) return replace(problem, message('error', value.problem));
          await change(value, `${nameOf(person)} is now ${value.role} for ${eventsText(value.events, names)}.`);
        },
      },
      access.node,
      problem,
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'submit', text: 'Save role' }),
        h('button', { type: 'button', class: 'secondary', text: 'Cancel', onClick: () => edit() }),
      ),
    );
    replace(editor, form);
    render();
    access.focus();
  }

  async function setDisabled(disabled) {
    const name = nameOf(person);
    if (disabled && !confirm(`Disable ${name}? Their sessions and tokens stop working at once.`)) return;
    await change({ disabled }, disabled ? `${name} is disabled.` : `${name} is enabled again.`);
  }

  async function invite() {
    const name = nameOf(person);
    const sure = await askFirst({
      title: `Make a new invitation link for ${name}?`,
      text: newLinkWarning(name, person.invitation),
      confirm: 'Make a new link',
    });
    if (!sure) return;
    try {
      const answer = await api('POST', `/users/${encodeURIComponent(person.user_id)}/invite`, {});
      person = { ...person, invitation: 'pending' };
      render();
      replace(feedback, inviteLinkPanel(person, answer.invite_url));
      feedback.querySelector('button')?.focus();
    } catch (error) {
      replace(feedback, message('error', `No new link: ${error.message}`));
    }
  }

  render();
  return item;
}
