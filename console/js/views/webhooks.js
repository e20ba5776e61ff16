import { api } from '../api.js';
import { field, h, message, replace, uid } from '../dom.js';
import { poll } from '../poll.js';
import { endpointCard, secretPanel } from './webhook-endpoint.js';

/** Endpoints and their deliveries refresh this often: a test message's attempt shows within 5 s. */
const LIVE_MS = 2000;
/** The newest deliveries shown per endpoint. */
const DELIVERIES_SHOWN = 10;

/** The message types an endpoint may subscribe to, as the contract names them. */
const TYPES = [
  'ticket.checked_in',
  'ticket.checked_out',
  'ticket.check_in_annulled',
  'ticket.revoked',
  'ticket.reissued',
  'checkin.conflict',
  'scanner.enrolled',
  'scanner.revoked',
  'webhook.test',
];

/** A labelled checkbox. */
function checkbox(labelText, value) {
  const input = h('input', { type: 'checkbox', value, id: uid('type') });
  return { input, node: h('div', { class: 'field checkbox' }, input, h('label', { for: input.id, text: labelText })) };
}

/** Webhooks: add an endpoint (its secret shown once), and each endpoint's state, actions and deliveries. */
export async function webhooksView(main) {
  document.title = 'Webhooks · Organizer console';
  const list = h('ul', { class: 'endpoints' }, h('li', { class: 'muted', text: 'Loading…' }));
  const cards = new Map();
  const feedback = h('div');
  const listFeedback = h('div');
  const deleted = (deletedUrl) => replace(listFeedback, message('success', `Endpoint ${deletedUrl} deleted.`));
  const url = h('input', { type: 'url', autocomplete: 'off', maxlength: '2048', required: true });
  const description = h('input', { type: 'text', autocomplete: 'off', maxlength: '500' });
  const all = checkbox('All types', '*');
  const boxes = TYPES.map((type) => checkbox(type, type));
  all.input.addEventListener('change', () => {
    for (const box of boxes) box.input.disabled = all.input.checked;
  });
  const form = h(
    'form',
    { onSubmit: add },
    field('Endpoint URL', url, 'Where messages are POSTed, e.g. https://example.com/hooks/tickets.'),
    h(
      'fieldset',
      { class: 'types' },
      h('legend', { text: 'Event types' }),
      all.node,
      boxes.map((box) => box.node),
    ),
    field('Description (optional)', description),
    h('button', { type: 'submit', text: 'Add endpoint' }),
  );

  async function add(event) {
    event.preventDefault();
    const eventTypes = all.input.checked
      ? ['*']
      : boxes.filter((box) => box.input.checked).map((box) => box.input.value);
    try {
      const created = await api('POST', '/webhooks', {
        url: url.value.trim(),
        event_types: eventTypes,
        ...(description.value.trim() ? { description: description.value.trim() } : {}),
      });
      form.reset();
      for (const box of boxes) box.input.disabled = false;
      replace(
        feedback,
        secretPanel(`Endpoint ${created.url} added; its signing secret is below.`, created.secret, created.url),
      );
      await refresh();
    } catch (error) {
      replace(feedback, message('error', `Not added: ${error.message}`));
    }
  }

  async function refresh() {
    const { webhooks } = await api('GET', '/webhooks');
    const deliveries = await Promise.all(
      webhooks.map((webhook) =>
        api('GET', `/webhooks/${encodeURIComponent(webhook.webhook_id)}/deliveries?limit=${DELIVERIES_SHOWN}`)
          .then((page) => page.deliveries)
          .catch(() => null),
      ),
    );
    const ids = new Set(webhooks.map((webhook) => webhook.webhook_id));
    for (const id of cards.keys()) if (!ids.has(id)) cards.delete(id);
    webhooks.forEach((webhook, index) => {
      if (!cards.has(webhook.webhook_id)) cards.set(webhook.webhook_id, endpointCard(webhook, refresh, deleted));
      cards.get(webhook.webhook_id).update(webhook, deliveries[index]);
    });
    const nodes = webhooks.map((webhook) => cards.get(webhook.webhook_id).node);
    if (nodes.length === 0) replace(list, h('li', { class: 'muted', text: 'No endpoint yet.' }));
    else if (nodes.some((node, index) => list.children[index] !== node) || list.children.length !== nodes.length) {
      replace(list, nodes);
    }
  }

  const sectionOf = (title, ...children) => {
    const id = uid('section');
    return h('section', { 'aria-labelledby': id }, h('h2', { id, text: title }), ...children);
  };
  replace(
    main,
    h('h1', { tabindex: '-1', text: 'Webhooks' }),
    h('p', {
      class: 'muted',
      text: 'The issuer POSTs each change to your endpoints, signed as Standard Webhooks describes; a receiver verifies it with the endpoint’s secret.',
    }),
    sectionOf('Add an endpoint', form, feedback),
    sectionOf('Endpoints', listFeedback, list),
  );
  return poll(refresh, LIVE_MS);
}
