import { api, apiUrl } from '../api.js';
import { h, replace, uid } from '../dom.js';
import { gateChart, reportChart, typeChart } from '../report-chart.js';
import { calendarDate, dateOf, timeOf, when } from '../time.js';

/** The ticket totals, in the order an organizer reads them after the event. */
const TOTALS = [
  ['issued', 'report-issued', 'Issued'],
  ['checked_in', 'report-checked-in', 'Holders checked in'],
  ['no_show', 'report-no-show', 'No-shows'],
  ['revoked', 'report-revoked', 'Revoked'],
];

/** A section with its heading, labelled by it. */
function section(title, ...children) {
  const id = uid('section');
  return h('section', { 'aria-labelledby': id }, h('h2', { id, text: title }), ...children);
}

/**
 * A table of numbers: a caption, a header row, and one row per item. The first column heads its row
 * (`th scope="row"`); the others are numbers, aligned for comparing.
 */
function numbers(caption, headers, rows) {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'rows report-table' },
      h('caption', { text: caption }),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          headers.map((text, i) => h('th', { scope: 'col', class: i === 0 ? null : 'num', text })),
        ),
      ),
      h(
        'tbody',
        {},
        rows.length === 0
          ? h('tr', {}, h('td', { colspan: String(headers.length), class: 'muted', text: 'None.' }))
          : rows.map(([head, ...cells]) =>
              h(
                'tr',
                {},
                h('th', { scope: 'row', text: head }),
                cells.map((cell) => h('td', { class: 'num', text: String(cell) })),
              ),
            ),
      ),
    ),
  );
}

/** A gate as the report names it: "North gate (north)" when declared, else its id; "No gate" for none. */
const gateName = (gateId, gates) => {
  if (gateId === null || gateId === undefined) return 'No gate';
  const declared = gates.find((gate) => gate.gate_id === gateId);
  return declared ? `${declared.name} (${gateId})` : gateId;
};

/** A download of the admin API (the session cookie goes with it), as a link that looks like a button. */
const download = (eid, file, text) =>
  h('a', {
    class: 'button secondary',
    href: apiUrl(`/events/${encodeURIComponent(eid)}/export/${file}`),
    download: `${eid}-${file}`,
    text,
  });

/**
 * An event's report, for every role that may read the event: ticket totals and no-shows, arrivals and
 * people inside hour by hour, per gate and per type (each a chart and its table), per day, the peak
 * inside, and the two CSV downloads. Hours and days are the event's, in its zone.
 */
export async function reportView(main, eid) {
  const path = `/events/${encodeURIComponent(eid)}`;
  const [event, report, gates] = await Promise.all([
    api('GET', path),
    api('GET', `${path}/report`),
    api('GET', `${path}/gates`).then(
      (answer) => answer.gates ?? [],
      () => [],
    ),
  ]);
  document.title = `Report: ${event.name} · Organizer console`;
  const zone = event.timezone ?? 'UTC';
  const chart = reportChart(report, zone);
  const perGate = gateChart(report.by_gate, (gateId) => gateName(gateId, gates));
  const perType = typeChart(report.by_type);
  const peak = report.peak_inside;

  replace(
    main,
    h(
      'p',
      { class: 'crumbs' },
      h('a', { href: '#/', text: 'All events' }),
      ' › ',
      h('a', { href: `#${path}`, text: event.name }),
    ),
    h('h1', { tabindex: '-1', text: `Report: ${event.name}` }),
    h('p', { class: 'muted', text: `Dates and hours in the event’s time zone, ${zone}.` }),
    h(
      'ul',
      { class: 'counters', 'aria-label': 'Ticket totals' },
      TOTALS.map(([key, testId, label]) =>
        h(
          'li',
          {},
          h('span', { class: 'count', 'data-testid': testId, text: String(report.tickets[key] ?? 0) }),
          h('span', { class: 'label', text: label }),
        ),
      ),
      h(
        'li',
        { class: 'inside' },
        h('span', { class: 'count', 'data-testid': 'report-peak', text: String(peak?.inside ?? 0) }),
        h('span', { class: 'label', text: peak?.at ? `Most inside, at ${when(peak.at, zone)}` : 'Most inside' }),
      ),
    ),
    section(
      'Downloads',
      h(
        'div',
        { class: 'actions' },
        download(eid, 'tickets.csv', 'Download tickets (CSV)'),
        download(eid, 'scans.csv', 'Download the scan log (CSV)'),
      ),
      h('p', { class: 'hint', text: 'One row per ticket, and one per scan; UTF-8 with a header row.' }),
    ),
    h(
      'div',
      { class: 'columns report-columns' },
      h(
        'div',
        {},
        section(
          'Arrivals and people inside',
          chart.node,
          h(
            'details',
            { class: 'hour-table' },
            h('summary', { text: 'Hour by hour' }),
            numbers(
              `Each hour in ${zone}`,
              ['Hour', 'Entries', 'Exits', 'Inside at its end'],
              report.by_hour.map((hour) => [
                `${dateOf(hour.hour, zone)}, ${timeOf(hour.hour, zone)}`,
                hour.entries,
                hour.exits,
                hour.inside_at_end,
              ]),
            ),
          ),
        ),
        section(
          'Per day',
          numbers(
            'Each event day',
            ['Day', 'Entries', 'Holders'],
            report.by_day.map((day) => [calendarDate(day.date), day.entries, day.unique_holders]),
          ),
        ),
      ),
      h(
        'div',
        {},
        section(
          'Per gate',
          perGate.node,
          numbers(
            'Entries and exits at each gate',
            ['Gate', 'Entries', 'Exits'],
            report.by_gate.map((gate) => [gateName(gate.gate_id, gates), gate.entries, gate.exits]),
          ),
        ),
        section(
          'Per ticket type',
          perType.node,
          numbers(
            'Tickets of each type',
            ['Type', 'Issued', 'Checked in', 'No-shows'],
            report.by_type.map((type) => [type.ticket_type, type.issued, type.checked_in, type.no_show]),
          ),
        ),
      ),
    ),
  );
  return () => [chart, perGate, perType].forEach((c) => c.destroy());
}
