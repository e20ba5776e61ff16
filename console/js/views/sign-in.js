import { ApiError, signIn, signInOptions, signInWithPassword, ssoStartUrl } from '../api.js';
import { field, h, message, replace } from '../dom.js';

/** What a refused single sign-on says (the issuer sends the console back with `#sso_error=<reason>`). */
const SSO_ERRORS = {
  expired: 'the sign-in took too long, or was started in another browser: try again.',
  denied: 'the provider did not sign you in (declined or refused).',
  failed: 'the provider’s answer could not be checked: try again, or ask whoever runs the issuer.',
  unavailable: 'the provider does not answer: try again in a moment.',
  unverified: 'the provider does not vouch for your email address.',
  unknown: 'nobody here has your email address: ask an owner of the console for an invitation.',
  disabled: 'you are disabled here: ask an owner of the console.',
  linked:
    'the person with your email address here signs in with another account of this provider: use that one, or ask an owner of the console.',
};

/** A refused single sign-on in words: a known reason as a sentence, anything else in general words. */
export function ssoErrorText(code) {
  const said = Object.hasOwn(SSO_ERRORS, code) ? SSO_ERRORS[code] : 'the provider or the issuer refused it.';
  return `Single sign-on did not sign you in: ${said}`;
}

/**
 * The sign-in: email and password; **Sign in with the admin token** puts the admin token's form in
 * their place (and a way back), so one **Sign in** button shows at a time; **Sign in with SSO** when
 * the issuer has single sign-on. A credential goes to the issuer once and is forgotten: the session
 * is an HttpOnly cookie. `options`: `notice` (a status), `alert` (an error to show at once), `email`
 * (prefilled, after an invitation).
 */
export async function signInView(main, options, onSignedIn) {
  document.title = 'Sign in · Organizer console';
  const { notice, alert, email: prefill } = options ?? {};
  const problem = h('div');
  const slot = h('div');
  const ssoSlot = h('div');
  const email = h('input', { type: 'email', name: 'email', autocomplete: 'username', required: true });
  const password = h('input', { type: 'password', name: 'password', autocomplete: 'current-password', required: true });
  const token = h('input', { type: 'password', name: 'admin_token', autocomplete: 'current-password', required: true });
  if (prefill) email.value = prefill;

  const passwordForm = h(
    'form',
    { onSubmit: (event) => submit(event, () => signInWithPassword(email.value.trim(), password.value)) },
    field('Email', email),
    field('Password', password),
    h('button', { type: 'submit', text: 'Sign in' }),
  );
  const tokenForm = h(
    'form',
    { onSubmit: (event) => submit(event, () => signIn(token.value)) },
    field('Admin token', token, 'The token printed when the issuer first started, or its ADMIN_TOKEN.'),
    h('button', { type: 'submit', text: 'Sign in' }),
  );
  const toToken = h('button', {
    type: 'button',
    class: 'link-button',
    text: 'Sign in with the admin token',
    onClick: () => show(tokenForm),
  });
  const toPassword = h('button', {
    type: 'button',
    class: 'link-button',
    text: 'Sign in with email and password',
    onClick: () => show(passwordForm),
  });

  let shown = null;
  /** Puts one form in the slot (the other leaves the page), with the control that swaps them. */
  function show(form) {
    shown = form;
    replace(problem);
    replace(slot, form, problem, h('p', { class: 'switch' }, form === passwordForm ? toToken : toPassword));
    if (form === tokenForm) token.focus();
    else (email.value ? password : email).focus();
  }

  replace(
    main,
    h('h1', { tabindex: '-1', text: 'Sign in' }),
    notice ? message('info', notice) : null,
    alert ? message('error', alert) : null,
    h('div', { class: 'card narrow sign-in' }, slot, ssoSlot),
  );
  show(passwordForm);

  const { sso } = await signInOptions();
  if (sso) {
    replace(
      ssoSlot,
      h('p', { class: 'or muted', text: 'or' }),
      h('a', { class: 'button-link', href: ssoStartUrl(), text: 'Sign in with SSO' }),
    );
  }

  async function submit(event, attempt) {
    event.preventDefault();
    replace(problem);
    try {
      await attempt();
      password.value = '';
      token.value = '';
      onSignedIn();
    } catch (error) {
      replace(problem, message('error', refused(error)));
      (shown === tokenForm ? token : password).select();
    }
  }

  /** Why signing in failed: a wrong credential (the same answer for an unknown email), or what the issuer said. */
  function refused(error) {
    if (!(error instanceof ApiError)) return `Signing in failed: ${error.message}`;
    if (error.status === 401 && shown === tokenForm) return 'That admin token is not valid.';
    if (error.status === 401) {
      return 'That email and password are not valid. After 10 failed attempts, signing in with that email is held for 15 minutes.';
    }
    if (error.status === 429) return 'Too many attempts: wait a minute, then try again.';
    return `Signing in failed: ${error.message}`;
  }
}
