import { api } from '../api.js';
import { h, message, replace, uid, when } from '../dom.js';

/**
 * One webhook endpoint on the Webhooks page: its state in words, its actions (test, disable or enable,
 * rotate, delete) and its newest deliveries with their attempts and **Redeliver**.
 */

const DELIVERY_STATES = { pending: 'Pending', delivered: 'Delivered', failed: 'Failed' };
const DISABLED_WHY = {
  gone: 'The receiver answered 410 Gone.',
  failing: 'Every attempt failed for 5 days.',
};

/** An instant to the second: attempts of one message are often within the same minute. */
const exactly = (iso) =>
  new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(iso));

/** An endpoint's state in words: Enabled, Failing since …, or Disabled (why). */
function endpointState(webhook) {
  if (!webhook.enabled) return `Disabled (${webhook.disabled_reason ?? 'by the organizer'})`;
  if (webhook.failing_since) return `Failing since ${when(webhook.failing_since)}`;
  return 'Enabled';
}

/** A secret shown this once, with **Copy secret** and its "Copied" status. */
export function secretPanel(intro, secret, url) {
  // Inside the panel's own live region, so "Copied" is announced without a second one.
  const status = h('span', { class: 'small' });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      status.textContent = 'Copied';
    } catch {
      status.textContent = 'Not copied: select the secret and copy it yourself.';
    }
  };
  return message(
    'success',
    h('p', { text: `${intro} Copy it now: it will not be shown again.` }),
    h('p', {}, h('code', { class: 'uri secret', text: secret })),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', text: 'Copy secret', 'aria-label': `Copy secret of ${url}`, onClick: copy }),
      status,
    ),
  );
}

/** One attempt: when, the receiver's status (or what went wrong), how long it took. */
function attemptLine(attempt) {
  const answer =
    attempt.status_code === null
      ? attempt.error
      : `HTTP ${attempt.status_code}${attempt.error ? ` (${attempt.error})` : ''}`;
  return h('li', { class: 'small', text: `${exactly(attempt.at)} · ${answer} · ${attempt.duration_ms} ms` });
}

/** One delivery: its type, state and time, each attempt, and **Redeliver**. */
function deliveryItem(delivery, redeliver) {
  const next =
    delivery.state === 'pending' && delivery.next_attempt_at ? ` · next ${exactly(delivery.next_attempt_at)}` : '';
  return h(
    'li',
    {},
    h('code', { text: delivery.type }),
    ' ',
    h('span', { class: `state delivery-${delivery.state}`, text: DELIVERY_STATES[delivery.state] ?? delivery.state }),
    h('div', { class: 'muted small', text: `${delivery.message_id} · created ${exactly(delivery.created_at)}${next}` }),
    delivery.attempts.length === 0
      ? h('p', { class: 'muted small', text: 'No attempt yet.' })
      : h(
          'ul',
          { class: 'attempts', 'aria-label': `Attempts of ${delivery.message_id}` },
          delivery.attempts.map(attemptLine),
        ),
    h('button', {
      type: 'button',
      class: 'secondary',
      text: 'Redeliver',
      'aria-label': `Redeliver ${delivery.message_id}`,
      onClick: () => redeliver(delivery),
    }),
  );
}

/**
 * One endpoint's card, built once and updated in place by each refresh, so that a secret just shown,
 * a message and the focus survive the polling.
 */
export function endpointCard(webhook, refresh, onDeleted) {
  const path = `/webhooks/${encodeURIComponent(webhook.webhook_id)}`;
  const button = (text, label, run, kind) =>
    h('button', { type: 'button', class: kind, text, 'aria-label': label, onClick: () => act(run) });
  const url = webhook.url;
  const types = h('div', { class: 'small' });
  const state = h('span', { class: 'state' });
  const why = h('div', { class: 'muted small' });
  const toggle = h('button', { type: 'button', class: 'secondary', onClick: () => act(setEnabled) });
  // A disabled endpoint receives nothing, a test included: the button says so instead of queuing a
  // message that can only fail.
  const testBlocked = h('p', { class: 'muted small', id: uid('test-blocked') });
  const test = button('Send test', `Send test to ${url}`, sendTest);
  test.setAttribute('aria-describedby', testBlocked.id);
  const secret = h('div');
  const feedback = h('div');
  const deliveries = h('ul', { class: 'deliveries', 'aria-label': `Deliveries to ${url}` });
  let current = webhook;
  let shown = { webhook: '', deliveries: '' };

  /** Runs an action, shows its outcome in the card, then refreshes the page's lists. */
  async function act(run) {
    try {
      const done = await run();
      if (done) replace(feedback, message('success', done));
      else replace(feedback);
    } catch (error) {
      replace(feedback, message('error', `Not done: ${error.message}`));
    }
    await refresh().catch(() => undefined);
  }

  async function sendTest() {
    const { message_id } = await api('POST', `${path}/test`, {});
    return `Test message ${message_id} queued.`;
  }

  async function setEnabled() {
    const enabled = !current.enabled;
    await api('PATCH', path, { enabled });
    return enabled ? 'Enabled: new messages are sent again.' : 'Disabled: no new messages are sent.';
  }

  async function rotate() {
    const answer = await api('POST', `${path}/rotate-secret`, {});
    replace(
      secret,
      secretPanel(
        'A new signing secret is below; for 24 h messages carry signatures by the old one and this one.',
        answer.secret,
        url,
      ),
    );
    return null;
  }

  async function remove() {
    if (!confirm(`Delete the endpoint ${url}? Its messages and their attempts are deleted too.`)) return null;
    await api('DELETE', path);
    onDeleted(url);
    return null;
  }

  const redeliver = (delivery) =>
    act(async () => {
      await api('POST', `${path}/deliveries/${encodeURIComponent(delivery.message_id)}/redeliver`, {});
      return `${delivery.message_id} will be attempted again at once.`;
    });

  /**
   * Shows the endpoint and its newest deliveries (null: not read this time, the shown ones stay);
   * parts whose data did not change are left alone.
   */
  function update(next, nextDeliveries) {
    current = next;
    const webhookText = JSON.stringify(next);
    if (webhookText !== shown.webhook) {
      types.textContent = `Types: ${next.event_types.includes('*') ? 'all types' : next.event_types.join(', ')}`;
      state.textContent = endpointState(next);
      state.className = `state ${next.enabled ? (next.failing_since ? 'state-failing' : 'state-active') : 'state-revoked'}`;
      why.textContent = next.enabled ? '' : (DISABLED_WHY[next.disabled_reason] ?? '');
      toggle.textContent = next.enabled ? 'Disable' : 'Enable';
      toggle.setAttribute('aria-label', `${next.enabled ? 'Disable' : 'Enable'} ${url}`);
      test.disabled = !next.enabled;
      testBlocked.textContent = next.enabled ? '' : 'Send test is off while the endpoint is disabled: enable it first.';
    }
    const deliveriesText = JSON.stringify(nextDeliveries);
    if (nextDeliveries !== null && deliveriesText !== shown.deliveries) {
      const focused = document.activeElement?.getAttribute('aria-label');
      replace(
        deliveries,
        nextDeliveries.length === 0
          ? h('li', { class: 'muted', text: 'No message yet.' })
          : nextDeliveries.map((delivery) => deliveryItem(delivery, redeliver)),
      );
      if (focused) deliveries.querySelector(`[aria-label="${CSS.escape(focused)}"]`)?.focus();
    }
    shown = { webhook: webhookText, deliveries: nextDeliveries === null ? shown.deliveries : deliveriesText };
  }

  const node = h(
    'li',
    { class: 'endpoint' },
    h('h3', {}, h('code', { text: url })),
    webhook.description ? h('p', { class: 'muted', text: webhook.description }) : null,
    types,
    h('div', {}, state),
    why,
    h(
      'div',
      { class: 'actions' },
      test,
      toggle,
      button('Rotate secret', `Rotate secret of ${url}`, rotate, 'secondary'),
      button('Delete', `Delete ${url}`, remove, 'danger'),
    ),
    testBlocked,
    secret,
    feedback,
    h('h4', { text: 'Deliveries' }),
    deliveries,
  );
  return { node, update };
}
