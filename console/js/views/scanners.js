import { api } from '../api.js';
import { field, h, message, replace, when } from '../dom.js';

/** "New enrolment token": the setup QR to scan with the gate's phone, and its URI as text. */
export function enrolment(eid, onCreated) {
  const gate = h('input', { type: 'text', autocomplete: 'off', maxlength: '128', pattern: '[!-~]+' });
  const result = h('div', { class: 'enrolment' });
  const form = h(
    'form',
    { onSubmit: create },
    field('Gate (optional)', gate, 'Limits the scanner to one gate, e.g. north.'),
    h('button', { type: 'submit', text: 'New enrolment token' }),
  );

  async function create(event) {
    event.preventDefault();
    try {
      const token = await api('POST', `/events/${encodeURIComponent(eid)}/enrollment-tokens`, {
        ...(gate.value.trim() ? { gate_id: gate.value.trim() } : {}),
      });
      replace(
        result,
        h('img', { src: token.setup_qr_png, alt: 'Setup QR code', class: 'qr', width: '240', height: '240' }),
        h('p', {}, 'Scan it with the scanner app, or enter this setup URI:'),
        h('p', {}, h('code', { class: 'uri', text: token.setup_uri })),
        h('img', {
          src: token.web_scanner_qr_png,
          alt: 'Web scanner QR code',
          class: 'qr',
          width: '240',
          height: '240',
        }),
        h('p', {}, 'Or scan this one with a phone’s camera: it opens the web scanner, enrolled for this event.'),
        h('p', {
          class: 'muted',
          text: `Single use${token.gate_id ? `, gate ${token.gate_id}` : ''}; valid until ${when(token.expires_at)}. It is not shown again.`,
        }),
      );
      onCreated();
    } catch (error) {
      replace(result, message('error', `No token was created: ${error.message}`));
    }
  }

  return h('div', {}, form, result);
}

/** The enrolled scanners: name, gate, last seen, and "Revoke key". */
export function scannerList() {
  const list = h('ul', { class: 'scanners' });

  function render(scanners, refresh) {
    if (scanners.length === 0) return replace(list, h('li', { class: 'muted', text: 'No scanner enrolled yet.' }));
    replace(
      list,
      scanners.map((scanner) => {
        const feedback = h('div');
        return h(
          'li',
          {},
          h('strong', { text: scanner.name ?? scanner.scanner_id }),
          h('span', { class: 'muted', text: ` ${scanner.gate_id ? `gate ${scanner.gate_id}` : 'any gate'}` }),
          h('div', { class: 'muted small', text: `Last seen ${when(scanner.last_seen_at)}` }),
          scanner.revoked_at
            ? h('div', { class: 'state state-revoked', text: 'key revoked' })
            : h('button', {
                type: 'button',
                class: 'danger',
                text: 'Revoke key',
                onClick: async () => {
                  if (!confirm(`Revoke the key of ${scanner.name ?? scanner.scanner_id}? It must enrol again.`)) return;
                  try {
                    await api('POST', `/api-keys/${encodeURIComponent(scanner.api_key_id)}/revoke`, {});
                    await refresh();
                  } catch (error) {
                    replace(feedback, message('error', `Not revoked: ${error.message}`));
                  }
                },
              }),
          feedback,
        );
      }),
    );
  }

  return { node: list, render };
}
