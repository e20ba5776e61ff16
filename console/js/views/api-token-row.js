import { api } from '../api.js';
import { h, message, replace, when } from '../dom.js';
import { ago, until } from '../words.js';
import { askFirst } from './ask-first.js';

/** Whether a token's expiry has passed. */
const expired = (token) => token.expires_at !== null && Date.parse(token.expires_at) <= Date.now();

/** When a token stops working, in words: "never", "21 Jun 2030, 00:00 (in 6 days)", "… (expired)". */
function expiryText(token) {
  if (token.expires_at === null) return 'never (until deleted)';
  return `${when(token.expires_at)} (${expired(token) ? 'expired' : until(token.expires_at)})`;
}

/**
 * One personal API token: its name, whose it is (`owner`: the person's name, on an owner's list of
 * everyone's), when it was made, when it expires and when it was last used, and **Delete** after a
 * confirmation. `onDeleted` is told once the issuer deleted it; a refusal is said in the row.
 */
export function apiTokenRow(token, owner, onDeleted) {
  const feedback = h('div');
  const lastUsed = h('span', { text: ago(token.last_used_at) });
  if (token.last_used_at) lastUsed.title = when(token.last_used_at);
  const item = h(
    'li',
    { class: 'api-token' },
    h(
      'div',
      { class: 'who' },
      h('strong', { text: token.name }),
      expired(token) ? [' ', h('span', { class: 'state state-expired', text: 'expired' })] : null,
    ),
    owner ? h('div', { class: 'small', text: `Person: ${owner}` }) : null,
    h('div', { class: 'small muted', text: `Created ${when(token.created_at)} · Expires ${expiryText(token)}` }),
    h('div', { class: 'small muted' }, 'Last used ', lastUsed),
    h(
      'div',
      { class: 'actions' },
      h('button', {
        type: 'button',
        class: 'danger',
        text: 'Delete',
        'aria-label': `Delete token ${token.name}`,
        onClick: remove,
      }),
    ),
    feedback,
  );

  async function remove() {
    const sure = await askFirst({
      title: `Delete the API token “${token.name}”?`,
      text: 'Scripts that use it are refused from their next request. This cannot be undone.',
      confirm: 'Delete token',
      danger: true,
    });
    if (!sure) return;
    try {
      await api('DELETE', `/api-tokens/${encodeURIComponent(token.token_id)}`);
      onDeleted(token);
    } catch (error) {
      replace(feedback, message('error', `Not deleted: ${error.message}`));
    }
  }

  return item;
}
