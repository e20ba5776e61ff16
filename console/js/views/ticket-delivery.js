import { may } from '../access.js';
import { api } from '../api.js';
import { h, message, replace, when } from '../dom.js';
import { deliveryText } from '../words.js';
import { MAIL_NOT_CONFIGURED } from './send-tickets.js';

/**
 * What a ticket row says of reaching its holder: the email and how its sending stands, and a link to
 * the holder page. A viewer's answers carry neither `email` nor `holder_url`, so a viewer sees none.
 */
export function deliverySummary(ticket) {
  if (typeof ticket.email !== 'string' && !ticket.holder_url) return null;
  const parts = [];
  if (typeof ticket.email === 'string') {
    parts.push(h('span', { class: 'email', text: ticket.email }), ' · ');
    const state = ticket.delivery?.status ?? 'none';
    parts.push(h('span', { class: `delivery delivery-${state}`, text: deliveryText(ticket.delivery, when) }));
  } else if (ticket.email === null) {
    parts.push(h('span', { class: 'muted', text: 'No email' }));
  }
  if (ticket.holder_url) {
    if (parts.length > 0) parts.push(' · ');
    parts.push(h('a', { href: ticket.holder_url, target: '_blank', rel: 'noopener', text: 'Holder page' }));
  }
  return h('div', { class: 'delivery-line small' }, parts);
}

/**
 * **Resend** for a ticket with an email, for a role that may send: queues its email again, sent or not
 * (`{"tids": [tid], "resend": true}`). `feedback` gets the outcome; `onQueued` runs once it is queued.
 */
export function resendButton(eid, ticket, feedback, onQueued) {
  if (typeof ticket.email !== 'string' || ticket.status === 'revoked' || !may('delivery.send', eid)) return null;
  return h('button', {
    type: 'button',
    class: 'secondary',
    text: 'Resend',
    'aria-label': `Resend ticket to ${ticket.holder_name}`,
    onClick: async () => {
      try {
        const { queued } = await api('POST', `/events/${encodeURIComponent(eid)}/deliveries`, {
          tids: [ticket.tid],
          resend: true,
        });
        replace(
          feedback,
          message(
            'success',
            queued > 0 ? `Queued: the ticket goes to ${ticket.email} again.` : 'Already queued: it goes out soon.',
          ),
        );
        onQueued();
      } catch (error) {
        const notConfigured = error.code === 'CONFLICT' && error.details?.reason === 'mail_not_configured';
        replace(feedback, message('error', notConfigured ? MAIL_NOT_CONFIGURED : `Not sent: ${error.message}`));
      }
    },
  });
}
