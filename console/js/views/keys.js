import { api } from '../api.js';
import { h, message, replace, when } from '../dom.js';

/** The signing keys (public parts) and rotation. */
export async function keysView(main) {
  document.title = 'Signing keys · Organizer console';
  const list = h('ul', { class: 'keys' });
  const feedback = h('div');
  const rotate = h('button', { type: 'button', text: 'Rotate signing key', onClick: rotateKey });
  replace(
    main,
    h('h1', { tabindex: '-1', text: 'Signing keys' }),
    h('p', {
      class: 'muted',
      text: 'New tickets are signed with the active key. Retired keys keep verifying the tickets they signed; scanners learn new keys when they next sync.',
    }),
    rotate,
    feedback,
    list,
  );
  await load();

  async function load() {
    const { keys } = await api('GET', '/signing-keys');
    replace(
      list,
      keys.map((key) =>
        h(
          'li',
          {},
          h('code', { class: 'kid', text: key.kid }),
          ' ',
          h('span', { class: `state state-${key.status}`, text: key.status }),
          h('div', {
            class: 'muted small',
            text: `Created ${when(key.created_at)}${key.retired_at ? ` · retired ${when(key.retired_at)}` : ''}`,
          }),
        ),
      ),
    );
  }

  async function rotateKey() {
    if (!confirm('Make a new active signing key? Tickets issued from now on are signed with it.')) return;
    try {
      const key = await api('POST', '/signing-keys/rotate', {});
      replace(feedback, message('success', `The new active key is ${key.kid}.`));
      await load();
    } catch (error) {
      replace(feedback, message('error', `Not rotated: ${error.message}`));
    }
  }
}
