import { api } from '../api.js';
import { field, h, message, replace, uid, when } from '../dom.js';
import { poll } from '../poll.js';
import { declaredGate, gateText, isLoopback, until } from '../words.js';

/** While a setup code is on screen, the list of tokens is read this often: a used code is replaced at once. */
const WATCH_MS = 2000;

/** What the typed gate means, said before the token is made: declared, declared in another case, or not. */
function gateHint(typed, gates) {
  if (typed === '') return null;
  const declared = declaredGate(typed, gates);
  if (declared?.gate_id === typed) return h('p', { class: 'hint', text: `Declared gate: ${declared.name}.` });
  if (declared) {
    return message(
      'warning',
      `Declared as ${declared.gate_id} (${declared.name}): the token will name ${declared.gate_id}.`,
    );
  }
  const known = gates.map((gate) => `${gate.gate_id} (${gate.name})`).join(', ');
  return message(
    'warning',
    `${typed} is not a declared gate: a scanner enrolled with it applies no gate’s admitted ticket types. `,
    known ? `Declared gates: ${known}.` : 'No gate is declared for this event yet (see Gates).',
  );
}

/** The issuer's own address, as the setup URI names it (`iss`), or null when it cannot be read. */
function issuerOf(setupUri) {
  try {
    return new URL(new URL(setupUri).searchParams.get('iss') ?? '');
  } catch {
    return null;
  }
}

/** Why phones may not get far with these codes: an issuer they cannot reach, plain HTTP, an undeclared gate. */
function warnings(token, typed) {
  const iss = issuerOf(token.setup_uri);
  const found = [];
  if (iss && isLoopback(iss.hostname)) {
    found.push(
      message(
        'warning',
        `The issuer’s address (BASE_URL) is ${iss.origin}: phones cannot reach it, and a phone opens its camera only over HTTPS. `,
        'Start the issuer with a BASE_URL that the phones reach over HTTPS (see “Running at a venue” in the README).',
      ),
    );
  } else if (iss?.protocol === 'http:') {
    found.push(
      message(
        'warning',
        `The issuer’s address (BASE_URL) ${iss.origin} is plain HTTP: a phone opens its camera only over HTTPS, `,
        'so the web scanner can take typed codes only (see “Running at a venue” in the README).',
      ),
    );
  }
  if (token.gate_declared === false) {
    found.push(
      message(
        'warning',
        `Gate ${token.gate_id} is not declared: a scanner enrolled with this code applies no gate’s admitted ticket types. `,
        'Declare it under Gates, or make a code for a declared gate.',
      ),
    );
  } else if (token.gate_declared === true && typed && typed !== token.gate_id) {
    found.push(h('p', { class: 'hint', text: `Stored as ${token.gate_id}, the declared gate’s spelling.` }));
  }
  return found;
}

/** One labelled QR code of the setup card, with the text it carries. */
function setupCode(title, purpose, image, ...text) {
  return h(
    'figure',
    { class: 'setup-code' },
    h('figcaption', {}, h('strong', { text: title }), h('span', { class: 'small', text: ` ${purpose}` })),
    image,
    ...text,
  );
}

const qr = (src, alt) => h('img', { src, alt, class: 'qr', width: '240', height: '240' });

/**
 * "New enrolment token": the gate (the declared ones offered), then the setup card with its two
 * labelled QR codes. While a code is shown the page watches it: once a phone used it, the card says
 * by whom and shows a fresh code for the same gate by itself, so the next phone needs no click.
 * **Done** hides the card and revokes a code that no phone used.
 */
export function enrolment(eid, { gates, onChanged }) {
  const path = `/events/${encodeURIComponent(eid)}/enrollment-tokens`;
  const listId = uid('declared-gates');
  const options = h('datalist', { id: listId });
  const hint = h('div', { 'aria-live': 'polite' });
  const gate = h('input', {
    type: 'text',
    autocomplete: 'off',
    maxlength: '128',
    pattern: '[!-~]+',
    list: listId,
    onInput: () => replace(hint, gateHint(gate.value.trim(), gates())),
  });
  const result = h('div', { class: 'enrolment' });
  // Finding holders by name shows names to gate staff: a choice per scanner, off unless asked for.
  const search = h('input', { type: 'checkbox', id: uid('allow-search') });
  const searchHint = h('p', {
    class: 'hint',
    id: `${search.id}-hint`,
    text: 'Gate staff may look a holder up by name (a phone that died) and check them in by hand.',
  });
  search.setAttribute('aria-describedby', searchHint.id);
  const form = h(
    'form',
    { onSubmit: create },
    field('Gate (optional)', gate, 'Pick a declared gate, or leave it empty: no gate, the scanner may scan anywhere.'),
    options,
    hint,
    h(
      'div',
      { class: 'field checkbox' },
      search,
      h('label', { for: search.id, text: 'Allow finding holders by name' }),
    ),
    searchHint,
    h('button', { type: 'submit', text: 'New enrolment token' }),
  );
  let shown = null;
  let stopWatching = () => {};

  async function create(event) {
    event.preventDefault();
    const typed = gate.value.trim();
    await issue(typed || null, typed, null, search.checked);
  }

  /** Makes a token; `usedBy`: the scanner that used the code it replaces; `allowSearch`: it may find holders. */
  async function issue(gateId, typed, usedBy, allowSearch) {
    stopWatching();
    try {
      const body = { ...(gateId ? { gate_id: gateId } : {}), ...(allowSearch ? { allow_search: true } : {}) };
      const token = await api('POST', path, body);
      show(token, typed, usedBy);
      onChanged();
    } catch (error) {
      shown = null;
      replace(result, message('error', `No token was created: ${error.message}`));
    }
  }

  function show(token, typed, usedBy) {
    shown = token;
    const status = h('p', {
      class: 'muted',
      text: `Waiting for a phone. Single use; valid until ${when(token.expires_at)} (${until(token.expires_at)}). It is not shown again.`,
    });
    replace(
      result,
      usedBy ? message('success', `Used by ${usedBy}. Here is a new code for the same gate.`) : null,
      h('h3', { text: `Setup codes for ${gateText(token.gate_id, gates())}` }),
      token.allow_search ? h('p', { class: 'small', text: 'This scanner may find holders by name.' }) : null,
      warnings(token, typed),
      h(
        'div',
        { class: 'setup-codes' },
        setupCode(
          'Web scanner QR code',
          'for a phone’s camera: it opens the web scanner, enrolled for this event.',
          qr(token.web_scanner_qr_png, 'Web scanner QR code'),
          h('p', { class: 'small' }, 'The same link, to open on the phone: '),
          h('a', {
            class: 'web-link small',
            href: token.web_scanner_url,
            target: '_blank',
            rel: 'noopener noreferrer',
            text: token.web_scanner_url,
          }),
        ),
        setupCode(
          'Scanner app QR code',
          'for the scanner app (a phone’s camera cannot open it): its ticket-issuer:// setup URI.',
          qr(token.setup_qr_png, 'Setup QR code'),
          h('p', { class: 'small' }, 'Or enter this setup URI in the app (or the CLI’s enroll):'),
          h('code', { class: 'uri', text: token.setup_uri }),
        ),
      ),
      status,
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'button', class: 'secondary', text: 'Done', onClick: done }),
        h('span', { class: 'muted small', text: 'Hides these codes, and revokes them if no phone used them.' }),
      ),
    );
    watch(token);
  }

  /** Follows the shown token in the list: used, it is replaced; revoked or expired, the card says so. */
  function watch(token) {
    let settled = false;
    stopWatching = poll(async () => {
      if (settled) return;
      const { enrollment_tokens: tokens } = await api('GET', path);
      const current = tokens.find((candidate) => candidate.token_id === token.token_id);
      if (!current || current.status === 'open' || settled) return;
      settled = true;
      stopWatching();
      if (current.status === 'used') {
        await issue(token.gate_id, token.gate_id, current.scanner_name ?? 'a scanner', token.allow_search);
        return;
      }
      shown = null;
      const why = current.status === 'revoked' ? 'This setup code was revoked.' : 'This setup code expired.';
      replace(result, message('info', `${why} Press New enrolment token for a new one.`));
      onChanged();
    }, WATCH_MS);
  }

  async function done() {
    stopWatching();
    const token = shown;
    shown = null;
    replace(result);
    if (!token) return;
    try {
      await api('POST', `/enrollment-tokens/${encodeURIComponent(token.token_id)}/revoke`, {});
    } catch (error) {
      // 409: a phone used it meanwhile; its scanner is listed under Scanners.
      if (error.status !== 409)
        replace(result, message('error', `The code was hidden but not revoked: ${error.message}`));
    }
    onChanged();
  }

  /** Offers the declared gates (called whenever they change). */
  function showGates(declared) {
    replace(
      options,
      declared.map((declaredOne) => h('option', { value: declaredOne.gate_id, label: declaredOne.name })),
    );
    replace(hint, gateHint(gate.value.trim(), declared));
  }

  return { node: h('div', {}, form, result), showGates, stop: () => stopWatching() };
}
