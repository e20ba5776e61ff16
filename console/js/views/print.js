import { api, apiUrl } from '../api.js';
import { h, replace, when } from '../dom.js';

/** Tickets per printed page set: each QR code is one image request to the issuer. */
const PAGE_SIZE = 60;

/** A printable sheet of ticket QR codes (the print stylesheet keeps only the cards). */
export async function printView(main, eid, after) {
  const base = `#/events/${encodeURIComponent(eid)}/print`;
  const [event, page] = await Promise.all([
    api('GET', `/events/${encodeURIComponent(eid)}`),
    api(
      'GET',
      `/events/${encodeURIComponent(eid)}/tickets?limit=${PAGE_SIZE}${after ? `&cursor=${encodeURIComponent(after)}` : ''}`,
    ),
  ]);
  document.title = `Tickets of ${event.name} · Organizer console`;
  // A revoked ticket is not printed: its holder must not get a card that the gate turns away.
  const printable = page.tickets.filter((ticket) => ticket.status !== 'revoked');
  const eventLine = `${event.name} · ${when(event.event_date)}`;
  const cards = printable.map((ticket) =>
    h(
      'li',
      { class: 'ticket-card' },
      h('img', {
        src: apiUrl(`/tickets/${encodeURIComponent(ticket.tid)}/qr.svg`),
        alt: `QR code of the ticket of ${ticket.holder_name}`,
        width: '160',
        height: '160',
      }),
      h('span', { class: 'small', text: eventLine }),
      h('strong', { text: ticket.holder_name }),
      // The type only: a sheet printed during the event must not say "(checked in)" on a guest's card.
      h('span', { text: ticket.ticket_type }),
      // The code to type when a QR will not scan: the ticket's short code (XXXXX-XXXXX), which
      // scanners resolve to the ticket. A viewer's answers carry none, as they carry no token.
      ticket.short_code !== undefined && h('span', { class: 'ticket-code-label', text: 'Ticket code' }),
      ticket.short_code !== undefined && h('code', { class: 'ticket-code', text: ticket.short_code }),
    ),
  );
  replace(
    main,
    h(
      'p',
      { class: 'crumbs no-print' },
      h('a', { href: `#/events/${encodeURIComponent(eid)}`, text: `Back to ${event.name}` }),
    ),
    h('h1', { tabindex: '-1', text: `Tickets of ${event.name}` }),
    h(
      'div',
      { class: 'no-print actions' },
      h('button', { type: 'button', text: 'Print', onClick: () => window.print() }),
      after ? h('a', { href: base, text: 'First page' }) : null,
      page.next_cursor
        ? h('a', { href: `${base}?after=${encodeURIComponent(page.next_cursor)}`, text: 'Next page' })
        : null,
    ),
    cards.length ? h('ul', { class: 'ticket-sheet' }, cards) : h('p', { text: emptyText(page.tickets.length) }),
  );
}

/** Why a page of the sheet has no card: no tickets at all, or only revoked ones. */
function emptyText(ticketsOnPage) {
  return ticketsOnPage ? 'Every ticket on this page is revoked: none is printed.' : 'This event has no tickets yet.';
}
