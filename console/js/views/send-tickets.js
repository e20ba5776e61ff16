import { may } from '../access.js';
import { api } from '../api.js';
import { h, message, replace } from '../dom.js';
import { emailCountsText, plural } from '../words.js';
import { askFirst } from './ask-first.js';

/** What an organizer reads when the issuer has no mail server (409 `mail_not_configured`). */
export const MAIL_NOT_CONFIGURED =
  'Mail is not configured on this issuer, so no email was sent. Set SMTP_URL (the mail server, e.g. ' +
  'smtps://user:password@mail.example.org:465) and MAIL_FROM (the sender, e.g. "Box Office <tickets@example.org>") ' +
  'in its settings and restart it.';

/**
 * **Send tickets**: the event's emails counted (read from the deliveries list's `counts`, one statement
 * on the issuer however many tickets), and, for a role that may send, a button that asks first, naming
 * how many emails will go, then queues every ticket with an email not sent yet (`tids: null`).
 * `onQueued` runs after a send, so the ticket rows can follow their emails.
 */
export function sendTickets(eid, onQueued) {
  const path = `/events/${encodeURIComponent(eid)}/deliveries`;
  const numbers = h('p', { 'data-testid': 'delivery-counts', text: 'Counting emails…' });
  const outcome = h('div', { class: 'send-outcome' });
  let counts = null;

  async function refresh() {
    counts = (await api('GET', `${path}?limit=1`)).counts;
    numbers.textContent = emailCountsText(counts);
  }

  async function send() {
    await refresh().catch(() => undefined);
    // Those never queued and those failed go; queued and sent ones do not (see the issuer's counts).
    const going = counts ? counts.with_email - counts.queued - counts.sent : 0;
    if (counts && going === 0) {
      replace(outcome, message('success', 'Nothing to send: every ticket with an email is sent or queued.'));
      return;
    }
    const confirmed = await askFirst({
      title: 'Send tickets by email?',
      text: `${plural(going, 'email')} will go, one to each ticket holder not sent one yet, with their ticket attached.`,
      confirm: `Send ${plural(going, 'email')}`,
    });
    if (!confirmed) return;
    try {
      const { queued } = await api('POST', path, { tids: null, resend: false });
      replace(outcome, message('success', `${plural(queued, 'email')} queued: they go out in the next minutes.`));
      onQueued();
    } catch (error) {
      const notConfigured = error.code === 'CONFLICT' && error.details?.reason === 'mail_not_configured';
      replace(outcome, message('error', notConfigured ? MAIL_NOT_CONFIGURED : `Not sent: ${error.message}`));
    }
    await refresh().catch(() => undefined);
  }

  const node = h(
    'div',
    { class: 'send-tickets' },
    numbers,
    may('delivery.send', eid) &&
      h('div', { class: 'actions' }, h('button', { type: 'button', text: 'Send tickets', onClick: () => send() })),
    outcome,
  );
  refresh().catch((error) => (numbers.textContent = `Emails could not be counted: ${error.message}`));
  return {
    node,
    refresh,
    /** True while some email waits: the page then follows it more often. */
    busy: () => counts !== null && counts.queued > 0,
  };
}
