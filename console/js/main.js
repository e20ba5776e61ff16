import { may, signedIn, whoText } from './access.js';
import { resumeSession, signOut, whenSignedOut } from './api.js';
import { message, replace } from './dom.js';
import { apiTokensView } from './views/api-tokens.js';
import { auditView } from './views/audit.js';
import { eventView } from './views/event.js';
import { eventsView } from './views/events.js';
import { invitationView } from './views/invitation.js';
import { keysView } from './views/keys.js';
import { peopleView } from './views/people.js';
import { printView } from './views/print.js';
import { reportView } from './views/report.js';
import { signInView, ssoErrorText } from './views/sign-in.js';
import { webhooksView } from './views/webhooks.js';

/**
 * Hash routes: the issuer serves one page, and a reload keeps the organizer where they were. The
 * third part is the action a page needs (null: every role may open it); the nav offers a page only
 * to those whose role allows it.
 */
const ROUTES = [
  [/^#?\/?$/, () => eventsView, null],
  [/^#\/events\/([^/?]+)$/, () => eventView, null],
  // Every role that may read the event reads its report and downloads its exports.
  [/^#\/events\/([^/?]+)\/report$/, () => reportView, null],
  // The sheet shows each ticket's token (its QR code and its code): not a viewer's page.
  [/^#\/events\/([^/?]+)\/print(?:\?after=([^&]+))?$/, () => printView, 'ticket_token.read'],
  [/^#\/keys$/, () => keysView, 'signing_key.read'],
  [/^#\/webhooks$/, () => webhooksView, 'webhook.read'],
  [/^#\/people$/, () => peopleView, 'user.read'],
  [/^#\/audit$/, () => auditView, 'audit.read'],
  [/^#\/api-tokens$/, () => apiTokensView, 'api_token.read'],
];

const SESSION_ENDED = 'Your session has ended. Sign in again.';
const INVITE = '#invite=';
const SSO_ERROR = '#sso_error=';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const who = document.getElementById('who');
let stopCurrent = () => {};
let generation = 0;

/** The nav as the signed-in person's role allows: each link names the action its page needs. */
function showNav() {
  for (const link of nav.querySelectorAll('[data-action]')) link.hidden = !may(link.dataset.action);
  who.textContent = whoText();
  nav.hidden = false;
}

/**
 * Renders the view of the current hash; each view returns how to stop its polling. `first`: the page
 * just opened (who is signed in, if anyone, is learned before the page is drawn).
 */
async function route(first = false) {
  stopCurrent();
  stopCurrent = () => {};
  const mine = ++generation;
  if (first) {
    if (!(await resumeSession())) return showSignIn();
    if (mine !== generation) return;
  } else {
    // Asked again at each page, beside the page's own requests: a role or event list changed by an
    // owner shows in the nav, and in the controls of the next page.
    resumeSession().then(
      (live) => mine === generation && (live ? showNav() : showSignIn({ notice: SESSION_ENDED })),
      () => undefined,
    );
  }
  showNav();
  const hash = location.hash || '#/';
  const match = ROUTES.map(([pattern, view, action]) => [pattern.exec(hash), view, action]).find(([found]) => found);
  if (!match) {
    replace(main, message('error', 'There is no such page. '), linkHome());
    return;
  }
  const [found, view, action] = match;
  if (action && !may(action)) {
    replace(main, message('error', `Your role (${signedIn().role}) does not allow this page. `), linkHome());
    return;
  }
  const params = found.slice(1).map((part) => (part === undefined ? undefined : decodeURIComponent(part)));
  try {
    const stop = (await view()(main, ...params)) ?? (() => {});
    if (mine === generation) stopCurrent = stop;
    else stop();
  } catch (error) {
    if (mine !== generation) return;
    const why = error.forRole ? 'your role does not allow it.' : error.message;
    replace(main, message('error', `This page could not be loaded: ${why}`), error.forRole ? linkHome() : null);
  }
  main.querySelector('h1')?.focus();
}

function linkHome() {
  const link = document.createElement('a');
  link.href = '#/';
  link.textContent = 'Back to the events';
  return link;
}

/** The sign-in (see sign-in.js for `options`). */
function showSignIn(options = {}) {
  stopCurrent();
  stopCurrent = () => {};
  generation += 1;
  nav.hidden = true;
  signInView(main, options, () => {
    if (location.hash.startsWith(INVITE) || location.hash.startsWith(SSO_ERROR)) forgetHash();
    route();
  });
}

/** An invitation link: choose a password, then sign in with it (the link's token leaves the address). */
function showInvitation(inviteToken) {
  stopCurrent();
  stopCurrent = () => {};
  generation += 1;
  nav.hidden = true;
  invitationView(main, inviteToken, (email) => {
    forgetHash();
    showSignIn({ notice: 'Your password is set. Sign in with your email and password.', email });
  });
}

/** Takes the hash out of the address (and the history) without a navigation. */
function forgetHash() {
  history.replaceState(null, '', `${location.pathname}${location.search}`);
}

/** A hash that is not a page: an invitation, or a refused single sign-on. True when it was one. */
function special(hash) {
  if (hash.startsWith(INVITE)) {
    showInvitation(decodeURIComponent(hash.slice(INVITE.length)));
    return true;
  }
  if (hash.startsWith(SSO_ERROR)) {
    const code = decodeURIComponent(hash.slice(SSO_ERROR.length));
    forgetHash();
    showSignIn({ alert: ssoErrorText(code) });
    return true;
  }
  return false;
}

document.getElementById('sign-out').addEventListener('click', async () => {
  try {
    await signOut();
  } finally {
    showSignIn({ notice: 'You are signed out.' });
  }
});

whenSignedOut(() => {
  // Several polls may learn it at once; the first one shows the form, the others leave it be.
  if (nav.hidden) return;
  showSignIn({ notice: SESSION_ENDED });
});

window.addEventListener('hashchange', () => {
  if (special(location.hash)) return;
  if (!nav.hidden) route();
});

if (!special(location.hash)) route(true);
