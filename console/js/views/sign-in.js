import { ApiError, signIn } from '../api.js';
import { field, h, message, replace } from '../dom.js';

/** The sign-in form: the admin token goes to the issuer once and is forgotten; a cookie is kept instead. */
export function signInView(main, notice, onSignedIn) {
  document.title = 'Sign in · Organizer console';
  const token = h('input', { type: 'password', name: 'admin_token', autocomplete: 'current-password', required: true });
  const problem = h('div');
  const form = h(
    'form',
    { class: 'card narrow', onSubmit: submit },
    field('Admin token', token, 'The token printed when the issuer first started, or its ADMIN_TOKEN.'),
    h('button', { type: 'submit', text: 'Sign in' }),
    problem,
  );
  replace(main, h('h1', { tabindex: '-1', text: 'Sign in' }), notice ? message('info', notice) : null, form);
  token.focus();

  async function submit(event) {
    event.preventDefault();
    replace(problem);
    try {
      await signIn(token.value);
      token.value = '';
      onSignedIn();
    } catch (error) {
      const text =
        error instanceof ApiError && error.status === 401
          ? 'That admin token is not valid.'
          : `Signing in failed: ${error.message}`;
      replace(problem, message('error', text));
      token.select();
    }
  }
}
