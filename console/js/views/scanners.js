import { may } from '../access.js';
import { api } from '../api.js';
import { h, message, replace, when } from '../dom.js';
import { ago, gateText, until } from '../words.js';

/** A scanner not heard from for this long is pointed out: perhaps a phone that was not handed back. */
const QUIET_MS = 60 * 60_000;

/** "North gate (north)", "Any gate", "gate south (not declared)": the first letter up. */
const gateWords = (gateId, gates) => {
  const text = gateText(gateId, gates);
  return text.charAt(0).toUpperCase() + text.slice(1);
};

/** Beyond this the clock is pointed out (the web scanner warns its user past the same). */
const CLOCK_WARN_S = 120;

/**
 * A scanner's clock as its last upload measured it: "Clock in step", "Clock +10 min fast", "Clock −3 min
 * slow" (whole minutes, seconds below one), or null before any measure.
 */
function clockWords(offset) {
  if (offset === null || offset === undefined) return null;
  const size = Math.abs(offset);
  if (size < 30) return 'Clock in step';
  const amount = size < 60 ? `${size} s` : `${Math.round(size / 60)} min`;
  return offset > 0 ? `Clock +${amount} fast` : `Clock −${amount} slow`;
}

/**
 * The Scanners section: the enrolled scanners (name, gate, last contact in words, **Revoke** after a
 * confirmation) and the open enrolment tokens (gate, expiry, **Revoke**); the Revoke buttons only for
 * a role that may revoke on event `eid`.
 */
export function scannerList({ eid, gates }) {
  const list = h('ul', { class: 'scanners', 'aria-label': 'Enrolled scanners' });
  const tokens = h('ul', { class: 'open-tokens', 'aria-label': 'Open enrolment tokens' });
  const tokensPart = h('div', {}, h('h3', { text: 'Open enrolment tokens' }), tokens);
  const feedback = h('div');

  async function revokeKey(scanner, name, refresh) {
    if (!confirm(`Revoke the key of ${name}? It stops scanning at once and must be enrolled again.`)) return;
    try {
      await api('POST', `/api-keys/${encodeURIComponent(scanner.api_key_id)}/revoke`, {});
      replace(feedback, message('success', `The key of ${name} is revoked.`));
      await refresh();
    } catch (error) {
      replace(feedback, message('error', `Not revoked: ${error.message}`));
    }
  }

  async function revokeToken(token, refresh) {
    try {
      await api('POST', `/enrollment-tokens/${encodeURIComponent(token.token_id)}/revoke`, {});
      replace(feedback, message('success', `The enrolment token for ${gateText(token.gate_id, gates())} is revoked.`));
    } catch (error) {
      replace(feedback, message('error', `Not revoked: ${error.message}`));
    }
    await refresh();
  }

  function scannerItem(scanner, refresh, now) {
    const name = scanner.name ?? scanner.scanner_id;
    const quiet = !scanner.revoked_at && (!scanner.last_seen_at || now - Date.parse(scanner.last_seen_at) > QUIET_MS);
    return h(
      'li',
      {},
      h('strong', { text: name }),
      h('div', { class: 'small', text: gateWords(scanner.gate_id, gates()) }),
      h('div', {
        class: 'muted small',
        title: when(scanner.last_seen_at),
        text: `Last contact ${ago(scanner.last_seen_at, now)}`,
      }),
      clockWords(scanner.clock_offset_s) &&
        h('div', {
          class: Math.abs(scanner.clock_offset_s) > CLOCK_WARN_S ? 'small warn-text' : 'muted small',
          title: 'the device’s clock minus the issuer’s, at its last upload',
          text: clockWords(scanner.clock_offset_s),
        }),
      quiet
        ? h('div', {
            class: 'small warn-text',
            text: 'Not heard from for over an hour: revoke it if the phone was not handed back.',
          })
        : null,
      scanner.revoked_at
        ? h('div', { class: 'state state-revoked', text: 'key revoked' })
        : may('api_key.revoke', eid) &&
            h('button', {
              type: 'button',
              class: 'danger',
              text: 'Revoke',
              'aria-label': `Revoke key of ${name}`,
              onClick: () => revokeKey(scanner, name, refresh),
            }),
    );
  }

  function tokenItem(token, refresh, now) {
    const gate = gateWords(token.gate_id, gates());
    return h(
      'li',
      {},
      h('strong', { text: gate }),
      h('div', {
        class: 'muted small',
        text: `Made ${ago(token.created_at, now)} · valid until ${when(token.expires_at)} (${until(token.expires_at, now)})`,
      }),
      may('enrollment_token.revoke', eid) &&
        h('button', {
          type: 'button',
          class: 'danger',
          text: 'Revoke',
          'aria-label': `Revoke enrolment token for ${gate}, made ${when(token.created_at)}`,
          onClick: () => revokeToken(token, refresh),
        }),
    );
  }

  /** `openTokens`: the event's enrolment tokens (null when they could not be read: that part hides). */
  function render(scanners, enrollmentTokens, refresh) {
    const now = Date.now();
    // The working scanners first; revoked ones after them.
    const ordered = [...scanners].sort((a, b) => Number(a.revoked_at !== null) - Number(b.revoked_at !== null));
    if (ordered.length === 0) replace(list, h('li', { class: 'muted', text: 'No scanner enrolled yet.' }));
    else
      replace(
        list,
        ordered.map((scanner) => scannerItem(scanner, refresh, now)),
      );
    tokensPart.hidden = enrollmentTokens === null;
    const open = (enrollmentTokens ?? []).filter((token) => token.status === 'open');
    if (open.length === 0) replace(tokens, h('li', { class: 'muted', text: 'No open enrolment token.' }));
    else
      replace(
        tokens,
        open.map((token) => tokenItem(token, refresh, now)),
      );
  }

  return { node: h('div', {}, list, feedback, tokensPart), render };
}
