import { may } from '../access.js';
import { api, apiUrl } from '../api.js';
import { field, h, message, replace } from '../dom.js';
import { notesEditor, notesSummary } from './ticket-notes.js';
import { deliverySummary, resendButton } from './ticket-delivery.js';

const PAGE_SIZE = 25;
const TYPING_PAUSE_MS = 250;

/** The reissue body naming the token shown: `{jti}`, or `{}` for a token issued before tokens had one. */
function replacing(token) {
  try {
    const payload = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const { jti } = JSON.parse(atob(payload));
    return typeof jti === 'string' ? { jti } : {};
  } catch {
    return {};
  }
}

/**
 * Search by holder name or tid, answered by the admin API a page at a time (an event may hold tens of
 * thousands of tickets). Each row can be revoked (after a confirmation), given a new token, or given
 * notes for the gate, as far as the signed-in person's role allows.
 */
export function ticketSearch(eid, onChanged) {
  const input = h('input', { type: 'search', autocomplete: 'off', onInput: () => schedule() });
  const results = h('ul', { class: 'tickets', 'aria-label': 'Tickets found' });
  const status = h('p', { class: 'muted', role: 'status' });
  const more = h('div');
  let timer = null;
  let generation = 0;
  /** The rows shown, by tid: the ticket each shows and how to show it anew. */
  const shownRows = new Map();

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(() => search(null), TYPING_PAUSE_MS);
  }

  async function search(cursor) {
    const mine = cursor ? generation : ++generation;
    const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (input.value.trim()) params.set('q', input.value.trim());
    if (cursor) params.set('cursor', cursor);
    const page = await api('GET', `/events/${encodeURIComponent(eid)}/tickets?${params}`);
    if (mine !== generation) return; // a newer search has started meanwhile
    if (!cursor) {
      replace(results);
      shownRows.clear();
    }
    results.append(...page.tickets.map(row));
    const shown = results.children.length;
    status.textContent =
      shown === 0
        ? 'No tickets match.'
        : `${shown}${page.next_cursor ? '+' : ''} ${shown === 1 ? 'ticket' : 'tickets'} shown.`;
    replace(more, page.next_cursor ? moreButton(page.next_cursor) : null);
  }

  const moreButton = (cursor) =>
    h('button', { type: 'button', class: 'secondary', text: 'More results', onClick: () => search(cursor) });

  function row(ticket) {
    const state = h('span');
    const notes = h('div');
    const reach = h('div');
    const feedback = h('div');
    const actions = h('div', { class: 'actions' });
    const item = h(
      'li',
      {},
      h('div', { class: 'who' }, h('strong', { text: ticket.holder_name }), ' ', state),
      h(
        'div',
        { class: 'muted small' },
        `${ticket.ticket_type} · `,
        ticket.order_ref ? `Order ${ticket.order_ref} · ` : null,
        ticket.short_code ? h('span', { class: 'short-code', text: `Code ${ticket.short_code}` }) : null,
        ticket.short_code ? ' · ' : null,
        h('code', { text: ticket.tid }),
      ),
      reach,
      notes,
      actions,
      feedback,
    );
    const show = (current) => {
      state.textContent = current.status.replace('_', ' ');
      state.className = `state state-${current.status}`;
      replace(reach, deliverySummary(current));
      replace(notes, notesSummary(current));
      replace(actions, buttonsFor(current));
      shownRows.set(current.tid, { ticket: current, show });
    };
    const editNotes = (current, button) => {
      button.setAttribute('aria-expanded', 'true');
      const close = () => {
        button.setAttribute('aria-expanded', 'false');
        replace(feedback);
      };
      const saved = (answer) => {
        show(answer);
        replace(feedback, message('success', 'Notes saved: scanners learn them at their next sync.'));
      };
      replace(feedback, notesEditor(current, saved, close));
      feedback.querySelector('input')?.focus();
    };
    const act = async (verb, ask, success, body = {}) => {
      if (!confirm(ask)) return;
      try {
        show(await api('POST', `/tickets/${encodeURIComponent(ticket.tid)}/${verb}`, body));
        replace(feedback, message('success', success));
        onChanged();
      } catch (error) {
        replace(feedback, message('error', `Not done: ${error.message}`));
      }
    };
    const buttonsFor = (current) => [
      // A viewer gets no token, so no QR code either (the answer has no ticket_token).
      current.ticket_token !== undefined &&
        may('ticket_token.read', eid) &&
        h('a', {
          href: apiUrl(`/tickets/${encodeURIComponent(current.tid)}/qr.svg`),
          target: '_blank',
          text: 'QR code',
        }),
      may('ticket.update', eid) &&
        h('button', {
          type: 'button',
          class: 'secondary',
          text: 'Gate notes',
          'aria-expanded': 'false',
          onClick: (clicked) => editNotes(current, clicked.currentTarget),
        }),
      (current.status === 'valid' || current.status === 'expired') && may('ticket.reissue', eid)
        ? h('button', {
            type: 'button',
            class: 'secondary',
            text: 'Reissue',
            onClick: () =>
              act(
                'reissue',
                `Give ${current.holder_name}'s ticket a new QR code? The old one stops working.`,
                'Reissued: print the new QR code.',
                // Names the token this row shows: if it was reissued meanwhile, the issuer refuses (409).
                replacing(current.ticket_token),
              ),
          })
        : null,
      resendButton(eid, current, feedback, () => followDeliveries([current.tid])),
      current.status !== 'revoked' && may('ticket.revoke', eid)
        ? h('button', {
            type: 'button',
            class: 'danger',
            text: 'Revoke',
            onClick: () =>
              act('revoke', `Revoke ${current.holder_name}'s ticket? Scanners will refuse it.`, 'Revoked.'),
          })
        : null,
    ];
    show(ticket);
    return item;
  }

  /** Rows whose email is moving: those just queued, and those still queued when last read. */
  const following = new Set();

  function followDeliveries(tids) {
    for (const tid of tids) following.add(tid);
    for (const [tid, { show, ticket }] of shownRows) {
      if (following.has(tid)) show({ ...ticket, delivery: { status: 'queued', sent_at: null, last_error: null } });
    }
  }

  /**
   * Reads anew the shown rows whose email is queued (`all`: every shown row with an email, after a send
   * of the whole event): at most a page of tickets, one answer each.
   */
  async function refreshDeliveries(all = false) {
    const stale = [...shownRows.values()].filter(
      ({ ticket }) =>
        typeof ticket.email === 'string' && (all || following.has(ticket.tid) || ticket.delivery?.status === 'queued'),
    );
    await Promise.all(
      stale.map(async ({ ticket }) => {
        const fresh = await api('GET', `/tickets/${encodeURIComponent(ticket.tid)}`);
        if (fresh.delivery?.status !== 'queued') following.delete(ticket.tid);
        shownRows.get(ticket.tid)?.show(fresh);
      }),
    );
  }

  const node = h(
    'div',
    { class: 'search' },
    field('Search tickets', input, 'By holder name (any part; case, accents and punctuation aside) or ticket id.'),
    status,
    results,
    more,
  );
  search(null).catch((error) => replace(more, message('error', `Tickets could not be loaded: ${error.message}`)));
  return {
    node,
    refresh: () => search(null),
    refreshDeliveries,
    /** True while a shown row's email is queued. */
    busy: () => [...shownRows.values()].some(({ ticket }) => ticket.delivery?.status === 'queued'),
  };
}
