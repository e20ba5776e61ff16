import { acceptInvitation, ApiError } from '../api.js';
import { field, h, message, replace } from '../dom.js';

/** The shortest password the issuer takes. */
export const MIN_PASSWORD = 12;

/** Why an invitation was not accepted, in words. */
function refused(error) {
  if (!(error instanceof ApiError)) return `The password was not set: ${error.message}`;
  const fields = error.details?.fields ?? [];
  if (error.status === 400 && fields.some((problem) => problem.field === 'password')) {
    return `The password must be at least ${MIN_PASSWORD} characters long.`;
  }
  if (error.status === 400) {
    return 'This invitation link was already used, has expired or is not valid: ask an owner of the console for a new one.';
  }
  if (error.status === 429) return 'Too many attempts: wait a minute, then try again.';
  return `The password was not set: ${error.message}`;
}

/**
 * The page an invitation link (`/console/#invite=<token>`) opens: the invited person chooses a
 * password (at least 12 characters, typed twice); `onAccepted(email)` then leads to the sign-in.
 */
export function invitationView(main, inviteToken, onAccepted) {
  document.title = 'Set your password · Organizer console';
  const password = h('input', {
    type: 'password',
    name: 'new-password',
    autocomplete: 'new-password',
    minlength: String(MIN_PASSWORD),
    maxlength: '1024',
    required: true,
  });
  const again = h('input', {
    type: 'password',
    name: 'confirm-password',
    autocomplete: 'new-password',
    minlength: String(MIN_PASSWORD),
    maxlength: '1024',
    required: true,
  });
  const problem = h('div');
  const button = h('button', { type: 'submit', text: 'Set password' });
  const form = h(
    'form',
    { class: 'card narrow', onSubmit: submit, novalidate: true },
    field('Password', password, `At least ${MIN_PASSWORD} characters. A few unrelated words make a good one.`),
    field('Confirm password', again),
    button,
    problem,
  );
  replace(
    main,
    h('h1', { tabindex: '-1', text: 'Set your password' }),
    h('p', { text: 'You are invited to the organizer console. Choose the password you will sign in with.' }),
    form,
  );
  password.focus();

  async function submit(event) {
    event.preventDefault();
    replace(problem);
    if (password.value.length < MIN_PASSWORD) {
      return fail(`The password must be at least ${MIN_PASSWORD} characters long.`, password);
    }
    if (again.value !== password.value) return fail('The two passwords differ: type the same one twice.', again);
    button.disabled = true;
    try {
      const accepted = await acceptInvitation(inviteToken, password.value);
      password.value = '';
      again.value = '';
      onAccepted(accepted.email);
    } catch (error) {
      fail(refused(error), password);
    } finally {
      button.disabled = false;
    }
  }

  function fail(text, control) {
    replace(problem, message('error', text));
    control.focus();
  }
}
