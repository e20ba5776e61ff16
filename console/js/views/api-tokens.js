import { may, signedIn } from '../access.js';
import { api } from '../api.js';
import { field, h, message, replace, uid } from '../dom.js';
import { readAll } from '../pages.js';
import { apiTokenRow } from './api-token-row.js';
import { newTokenPanel } from './new-token-panel.js';

/** The issuer's field problems of a new token, in words. */
const FIELD_WORDS = {
  name: 'The name is missing or too long (at most 200 characters).',
  expires_at: 'The expiry must be a day to come.',
};

function refusal(error) {
  const known = (error.details?.fields ?? []).map((problem) => FIELD_WORDS[problem.field]).filter(Boolean);
  return known.length > 0 ? [...new Set(known)].join(' ') : error.message;
}

/** A date picked as `YYYY-MM-DD`: the token works through that day in the browser's time zone. */
function endOfDay(picked) {
  const [year, month, day] = picked.split('-').map(Number);
  return new Date(year, month - 1, day + 1).toISOString();
}

/** Today in the browser's time zone, as a date field's `min`. */
function today() {
  const now = new Date();
  const pad = (n) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** A section with its heading, labelled by it. */
function section(title, ...children) {
  const id = uid('section');
  return h('section', { 'aria-labelledby': id }, h('h2', { id, text: title }), ...children);
}

/**
 * API tokens (every signed-in person): make a personal token (its secret shown once), list one's own
 * (an owner's list holds everyone's, each with its person) and delete one after a confirmation. The
 * admin token is no person: it may list and delete, not make.
 */
export async function apiTokensView(main) {
  document.title = 'API tokens · Organizer console';
  const me = signedIn().user;
  const everyone = signedIn().role === 'owner';
  const [tokens, people] = await Promise.all([
    readAll('/api-tokens', 'api_tokens'),
    everyone && may('user.read') ? readAll('/users', 'users') : Promise.resolve([]),
  ]);
  const names = new Map(people.map((person) => [person.user_id, person.name || person.email]));
  const list = h('ul', { class: 'api-tokens', 'aria-label': everyone ? 'Everyone’s API tokens' : 'Your API tokens' });
  const made = h('div');
  const listFeedback = h('div');
  let shown = [...tokens];

  function ownerOf(token) {
    if (!everyone) return null;
    if (token.user_id === me?.user_id) return 'you';
    return names.get(token.user_id) ?? token.user_id;
  }

  function show() {
    if (shown.length === 0) return replace(list, h('li', { class: 'muted', text: 'No API tokens yet.' }));
    // Newest first: token ids are time-ordered.
    const ordered = [...shown].sort((a, b) => b.token_id.localeCompare(a.token_id));
    replace(
      list,
      ordered.map((token) => apiTokenRow(token, ownerOf(token), deleted)),
    );
  }

  function deleted(token) {
    shown = shown.filter((t) => t.token_id !== token.token_id);
    show();
    replace(listFeedback, message('success', `The token “${token.name}” is deleted.`));
    main.querySelector('h1')?.focus();
  }

  const name = h('input', { type: 'text', autocomplete: 'off', maxlength: '200', required: true });
  const expires = h('input', { type: 'date', min: today() });
  const button = h('button', { type: 'submit', text: 'Make token' });
  const form = h(
    'form',
    { onSubmit: create },
    field('Token name', name, 'What the token is for, such as “nightly ticket export”.'),
    field(
      'Expires (optional)',
      expires,
      'It stops working at the end of this day, your time. Empty: it works until you delete it.',
    ),
    button,
  );

  async function create(event) {
    event.preventDefault();
    button.disabled = true;
    try {
      const body = { name: name.value.trim(), ...(expires.value ? { expires_at: endOfDay(expires.value) } : {}) };
      const answer = await api('POST', '/api-tokens', body);
      form.reset();
      replace(made, newTokenPanel(answer));
      made.querySelector('button')?.focus();
      shown = await readAll('/api-tokens', 'api_tokens');
      show();
    } catch (error) {
      replace(made, message('error', `No token made: ${refusal(error)}`));
    } finally {
      button.disabled = false;
    }
  }

  replace(
    main,
    h('h1', { tabindex: '-1', text: 'API tokens' }),
    h('p', {
      class: 'muted',
      text: 'A personal API token lets a script use the admin API as you, with your role. Each is shown once, when it is made.',
    }),
    me
      ? section('Make a token', form, made)
      : message(
          'info',
          'The admin token is no person and holds no API tokens: sign in with your email and password to make one. As the built-in owner you see everyone’s and may delete them.',
        ),
    section(everyone ? 'Everyone’s tokens' : 'Your tokens', listFeedback, list),
  );
  show();
}
