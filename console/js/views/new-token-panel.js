import { field, h, message } from '../dom.js';

/**
 * A personal API token just made: its secret, shown this once in a read-only field with **Copy token**,
 * and said plainly that it will not be shown again (the issuer keeps only its digest).
 */
export function newTokenPanel(created) {
  const secret = h('input', {
    type: 'text',
    readonly: true,
    value: created.token,
    class: 'invite-url',
    spellcheck: 'false',
    autocomplete: 'off',
  });
  secret.addEventListener('focus', () => secret.select());
  // Inside the panel's own live region, so "Copied" is announced without a second one.
  const status = h('span', { class: 'small' });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.token);
      status.textContent = 'Copied';
    } catch {
      secret.select();
      status.textContent = 'Not copied: the token is selected, copy it yourself.';
    }
  };
  return message(
    'success',
    h('p', {}, h('strong', { text: `Copy the token “${created.name}” now: you will not see it again.` })),
    h('p', {
      class: 'small',
      text: 'Scripts send it as “Authorization: Bearer <token>”; it acts as you, with your role, until it expires or you delete it.',
    }),
    field('New API token', secret),
    h('div', { class: 'actions' }, h('button', { type: 'button', text: 'Copy token', onClick: copy }), status),
  );
}
