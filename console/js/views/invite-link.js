import { field, h, message } from '../dom.js';

/**
 * A new invitation link, to hand to the person (by mail, chat…): shown here once, in a read-only
 * field to select and a **Copy link** button. It works once, for 72 hours; a new one ends it.
 */
export function inviteLinkPanel(person, inviteUrl) {
  const link = h('input', { type: 'text', readonly: true, value: inviteUrl, class: 'invite-url', spellcheck: 'false' });
  link.addEventListener('focus', () => link.select());
  // Inside the panel's own live region, so "Copied" is announced without a second one.
  const status = h('span', { class: 'small' });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(inviteUrl);
      status.textContent = 'Copied';
    } catch {
      link.select();
      status.textContent = 'Not copied: the link is selected, copy it yourself.';
    }
  };
  return message(
    'success',
    h('p', {
      text: `Send this link to ${person.name || person.email}: it sets their password, works once and for 72 hours. It is not shown again.`,
    }),
    field('Invitation link', link),
    h(
      'div',
      { class: 'actions' },
      h('button', {
        type: 'button',
        text: 'Copy link',
        'aria-label': `Copy link for ${person.name || person.email}`,
        onClick: copy,
      }),
      status,
    ),
  );
}
