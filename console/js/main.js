import { resumeSession, signOut, whenSignedOut } from './api.js';
import { message, replace } from './dom.js';
import { eventView } from './views/event.js';
import { eventsView } from './views/events.js';
import { keysView } from './views/keys.js';
import { printView } from './views/print.js';
import { signInView } from './views/sign-in.js';
import { webhooksView } from './views/webhooks.js';

/** Hash routes: the issuer serves one page, and a reload keeps the organizer where they were. */
const ROUTES = [
  [/^#?\/?$/, () => eventsView],
  [/^#\/events\/([^/?]+)$/, () => eventView],
  [/^#\/events\/([^/?]+)\/print(?:\?after=([^&]+))?$/, () => printView],
  [/^#\/keys$/, () => keysView],
  [/^#\/webhooks$/, () => webhooksView],
];

const main = document.getElementById('main');
const nav = document.getElementById('nav');
let stopCurrent = () => {};

/** Renders the view of the current hash; each view returns how to stop its polling. */
async function route() {
  stopCurrent();
  stopCurrent = () => {};
  const hash = location.hash || '#/';
  const match = ROUTES.map(([pattern, view]) => [pattern.exec(hash), view]).find(([found]) => found);
  if (!match) {
    replace(main, message('error', 'There is no such page. '), linkHome());
    return;
  }
  const [found, view] = match;
  const params = found.slice(1).map((part) => (part === undefined ? undefined : decodeURIComponent(part)));
  try {
    stopCurrent = (await view()(main, ...params)) ?? (() => {});
  } catch (error) {
    replace(main, message('error', `This page could not be loaded: ${error.message}`));
  }
  main.querySelector('h1')?.focus();
}

function linkHome() {
  const link = document.createElement('a');
  link.href = '#/';
  link.textContent = 'Back to the events';
  return link;
}

function showSignIn(notice) {
  stopCurrent();
  stopCurrent = () => {};
  nav.hidden = true;
  signInView(main, notice, () => {
    nav.hidden = false;
    route();
  });
}

document.getElementById('sign-out').addEventListener('click', async () => {
  try {
    await signOut();
  } finally {
    showSignIn('You are signed out.');
  }
});

whenSignedOut(() => {
  // Several polls may learn it at once; the first one shows the form, the others leave it be.
  if (nav.hidden) return;
  showSignIn('Your session has ended. Sign in again.');
});

window.addEventListener('hashchange', () => {
  if (!nav.hidden) route();
});

if (await resumeSession()) {
  nav.hidden = false;
  route();
} else {
  showSignIn();
}
