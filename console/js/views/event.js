import { may } from '../access.js';
import { api } from '../api.js';
import { arrivalsChart } from '../chart.js';
import { h, replace, uid, when } from '../dom.js';
import { poll } from '../poll.js';
import { conflictReport, renderConflicts, renderScanLog, scanLog } from './activity.js';
import { gateEditor } from './gates.js';
import { eventSettings } from './event-settings.js';
import { enrolment } from './enrolment.js';
import { scannerList } from './scanners.js';
import { ticketImport } from './ticket-import.js';
import { ticketSearch } from './ticket-search.js';
import { ticketTypes } from './ticket-types.js';
import { scanAnnul } from './scan-annul.js';
import { sendTickets } from './send-tickets.js';

/** Counters and the scan log refresh this often: a change shows within 5 s without a reload. */
const LIVE_MS = 2000;
/** Scanners and conflicts change more slowly: every this many live refreshes. */
const SLOW_EVERY = 3;

/** After Inside now, what a supervisor looks at first: conflicts, then entries. */
const COUNTERS = [
  ['conflicts', 'count-conflicts', 'Conflicts'],
  // Holders, each once: the arrivals chart counts entries, re-entries included.
  ['checked_in', 'count-checked-in', 'Holders checked in'],
  ['issued', 'count-issued', 'Issued'],
  ['revoked', 'count-revoked', 'Revoked'],
];

/** Where both columns fit (the stylesheet's breakpoint): every section starts open there. */
const WIDE = '(min-width: 64rem)';

/** A section with its heading, labelled by it. */
function section(title, ...children) {
  const id = uid('section');
  return h('section', { 'aria-labelledby': id }, h('h2', { id, text: title }), ...children);
}

/**
 * A long section that folds (`<details>`): open on a wide screen, folded on a phone, where the page
 * leads with what a supervisor needs. Its heading is the summary, so a tap opens it.
 */
function foldingSection(title, ...children) {
  const id = uid('section');
  return h(
    'section',
    { 'aria-labelledby': id, class: 'folding' },
    h('details', { open: matchMedia(WIDE).matches }, h('summary', {}, h('h2', { id, text: title })), ...children),
  );
}

/**
 * One event: live counters and arrivals, tickets, scanners, scan log and conflicts; the editors and
 * actions only as far as the signed-in person's role allows (the sections themselves for everyone).
 */
export async function eventView(main, eid) {
  const path = `/events/${encodeURIComponent(eid)}`;
  const event = await api('GET', path);
  document.title = `${event.name} · Organizer console`;

  const counts = Object.fromEntries(
    COUNTERS.map(([key, testId]) => [key, h('span', { class: 'count', 'data-testid': testId })]),
  );
  const chart = arrivalsChart();
  const log = scanLog(eid);
  const conflicts = conflictReport(eid);
  let declaredGates = [];
  const scanners = scannerList({ eid, gates: () => declaredGates });
  const scanList = h('ul', { class: 'scan-log' });
  const moreScans = h('div');
  const conflictList = h('ul', { class: 'conflicts' });
  const moreConflicts = h('div');
  const names = new Map();
  const annul = scanAnnul(eid, (scan) => {
    log.markAnnulled(scan);
    renderScanLog(scanList, moreScans, log, names, annul);
    refreshLive().catch(() => undefined);
    // The ticket's row in the list shows its state after the annul (unused again, or still in).
    search.refreshTicket(scan.tid).catch(() => undefined);
  });
  const search = ticketSearch(eid, () => refreshLive());
  const sends = sendTickets(eid, () => search.refreshDeliveries(true).catch(() => undefined));
  const enrol = enrolment(eid, { gates: () => declaredGates, onChanged: () => refreshSlow() });
  const gates = gateEditor(eid, {
    onGates: (declared) => {
      declaredGates = declared;
      enrol.showGates(declared);
    },
  });
  gates.refresh().catch(() => undefined);
  const types = ticketTypes(eid, event);
  types.refresh().catch(() => undefined);

  const showCounters = (counters) => {
    for (const [key] of COUNTERS) counts[key].textContent = String(counters[key] ?? 0);
  };
  showCounters(event.counters ?? {});

  // Inside now: the exact count, "of N" with a capacity, and a warning from 90 % of it.
  const inside = h('span', { class: 'count', 'data-testid': 'count-inside', text: '0' });
  const capacityWarning = h('p', { class: 'capacity-warning', role: 'status' });
  const showOccupancy = (occupancy) => {
    const { capacity } = occupancy;
    inside.textContent = capacity === null ? String(occupancy.inside) : `${occupancy.inside} of ${capacity}`;
    const share = capacity ? occupancy.inside / capacity : 0;
    capacityWarning.textContent =
      capacity && share >= 0.9 ? `Warning: ${Math.floor(share * 100)} % of the capacity (${capacity}) is inside.` : '';
    gates.showCounts(occupancy.gates);
  };

  // Everything read here is kept by the issuer (counters, occupancy, arrivals) or a page of the log:
  // a refresh costs the same at an event of a million tickets.
  async function refreshLive() {
    const [current, occupancy, arrivals] = await Promise.all([
      api('GET', path),
      api('GET', `${path}/occupancy`),
      api('GET', `${path}/arrivals`),
      log.refresh(),
      // While emails go out, their numbers and the rows showing them follow at this pace.
      sends.busy() || search.busy() ? Promise.all([sends.refresh(), search.refreshDeliveries()]) : null,
    ]);
    showCounters(current.counters ?? {});
    showOccupancy(occupancy);
    chart.update(arrivals);
    renderScanLog(scanList, moreScans, log, names, annul);
  }

  async function refreshSlow() {
    const [{ scanners: records }, , tokens] = await Promise.all([
      api('GET', `${path}/scanners`),
      conflicts.refresh(),
      // Null when the tokens cannot be listed: the Scanners section then leaves that part out.
      api('GET', `${path}/enrollment-tokens`).then(
        (answer) => answer.enrollment_tokens,
        () => null,
      ),
      sends.refresh(),
    ]);
    for (const record of records) names.set(record.api_key_id, record.name ?? record.scanner_id);
    scanners.render(records, tokens, refreshSlow);
    renderConflicts(conflictList, moreConflicts, conflicts);
  }

  replace(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/', text: 'All events' })),
    h('h1', { tabindex: '-1', text: event.name }),
    h('p', { class: 'muted', text: `${when(event.event_date)}${event.ends_at ? ` – ${when(event.ends_at)}` : ''}` }),
    h('p', {}, h('a', { href: `#/events/${encodeURIComponent(eid)}/report`, text: 'Report and exports' })),
    h(
      'ul',
      { class: 'counters', 'aria-label': 'Counters' },
      h('li', { class: 'inside' }, inside, h('span', { class: 'label', text: 'Inside now' })),
      COUNTERS.map(([key, , label]) => h('li', {}, counts[key], h('span', { class: 'label', text: label }))),
    ),
    capacityWarning,
    // The supervisor's column first (on a phone it comes right after the counters), the organizer's
    // long lists second; on a wide screen they stand side by side in that order.
    h(
      'div',
      { class: 'columns' },
      h(
        'div',
        {},
        section('Conflicts', conflictList, moreConflicts),
        section('Scanners', scanners.node),
        may('enrollment_token.create', eid) && section('Set up a scanner', enrol.node),
        foldingSection('Scan log', annul.feedback, scanList, moreScans, annul.dialog),
        foldingSection('Gates', gates.node),
        may('event.update', eid) &&
          foldingSection(
            'Entry rules',
            eventSettings(event, (saved) => {
              types.showEvent(saved);
              refreshLive();
            }),
          ),
        foldingSection('Ticket types', types.node),
      ),
      h(
        'div',
        {},
        foldingSection('Arrivals over time', chart.node),
        foldingSection(
          'Tickets',
          may('ticket.create', eid) &&
            ticketImport(eid, () => {
              refreshLive();
              search.refresh();
              gates.refreshTypes().catch(() => undefined);
              types.refresh().catch(() => undefined);
            }),
          h('h3', { text: 'Send tickets' }),
          sends.node,
          may('ticket_token.read', eid) &&
            h(
              'p',
              {},
              h('a', { href: `#/events/${encodeURIComponent(eid)}/print`, text: 'Printable ticket QR codes' }),
            ),
          search.node,
        ),
      ),
    ),
  );

  let tick = 0;
  const stop = poll(async () => {
    await Promise.all([refreshLive(), tick++ % SLOW_EVERY === 0 ? refreshSlow() : null]);
  }, LIVE_MS);
  return () => {
    stop();
    enrol.stop();
    chart.destroy();
  };
}
