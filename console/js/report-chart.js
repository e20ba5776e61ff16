import uPlot from '../vendor/uPlot.esm.js';
import { categoryChart } from './category-chart.js';
import { COLORS, timeAxis, zoned } from './chart.js';
import { h, uid } from './dom.js';
import { timeOf, when } from './time.js';
import { plural } from './words.js';

const HEIGHT = 240;
const SERIES = [
  { key: 'entries', label: 'Entries in the hour (bars)', color: COLORS[0], dash: undefined },
  { key: 'inside_at_end', label: 'Inside at the end of the hour (dashed line)', color: COLORS[2], dash: [6, 4] },
];

/**
 * The report's "Arrivals and people inside" chart (uPlot): entries per hour and the people inside at
 * the end of each hour, against the event's local time. One image to assistive technology
 * (role="img"), described by a text summary; the legend is plain text, and the hour table beside it
 * holds every number.
 */
export function reportChart(report, timeZone) {
  const hours = report.by_hour;
  const summary = h('p', { id: uid('report-summary'), class: 'muted', text: summaryText(report, timeZone) });
  const area = h('div', { class: 'plot' });
  const figure = h(
    'div',
    {
      class: hours.length === 0 ? 'chart empty' : 'chart',
      role: 'img',
      'aria-label': 'Arrivals and people inside over time',
      'aria-describedby': summary.id,
    },
    area,
  );
  const legend = h(
    'ul',
    { class: 'legend' },
    SERIES.map((series) => {
      const swatch = h('span', { class: `swatch${series.dash ? ' dashed' : ''}`, 'aria-hidden': 'true' });
      swatch.style.backgroundColor = series.color;
      return h('li', {}, swatch, series.label);
    }),
  );
  let plot = null;
  const resize = new ResizeObserver(() => {
    if (hours.length === 0) return;
    if (plot === null) plot = new uPlot(options(hours, timeZone, area.clientWidth), data(hours), area);
    else plot.setSize({ width: area.clientWidth, height: HEIGHT });
  });
  resize.observe(area);
  return {
    node: h('div', { class: 'arrivals' }, figure, summary, hours.length === 0 ? null : legend),
    destroy: () => {
      resize.disconnect();
      plot?.destroy();
    },
  };
}

/**
 * The plotted data: the hour starts and the end of the last hour (in seconds, as uPlot wants them);
 * each hour's entries as a bar over that hour; the people inside at each hour's end, starting from
 * none before the first hour (the report's hours start at the first scan).
 */
function data(hours) {
  const starts = hours.map((hour) => Date.parse(hour.hour) / 1000);
  return [
    [...starts, starts.at(-1) + 3600],
    [...hours.map((hour) => hour.entries), null],
    [0, ...hours.map((hour) => hour.inside_at_end)],
  ];
}

function options(hours, timeZone, width) {
  const first = Date.parse(hours[0].hour) / 1000;
  const last = Date.parse(hours.at(-1).hour) / 1000 + 3600;
  const [entries, inside] = SERIES;
  return {
    width: width || 320,
    height: HEIGHT,
    ...zoned(timeZone),
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    // Room on the right for the last tick's label.
    padding: [12, 40, 0, 8],
    scales: {
      x: { time: true, auto: false, min: first, max: last },
      y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
    },
    axes: [timeAxis(`Time in ${timeZone}`, timeZone), { stroke: '#333', size: 48, label: 'People', labelSize: 18 }],
    series: [
      {},
      {
        label: entries.label,
        stroke: entries.color,
        fill: `${entries.color}33`,
        width: 2,
        // A bar from the hour's start across the hour.
        paths: uPlot.paths.bars({ size: [0.9, Infinity], align: 1 }),
        points: { show: false },
      },
      { label: inside.label, stroke: inside.color, width: 2, dash: inside.dash, points: { show: true } },
    ],
  };
}

/** The chart in words: how many entries over which hours, the busiest hour and the peak inside. */
export function summaryText(report, timeZone) {
  const hours = report.by_hour;
  if (hours.length === 0) return 'No entries were recorded.';
  const entries = hours.reduce((sum, hour) => sum + hour.entries, 0);
  const busiest = hours.reduce((best, hour) => (hour.entries > best.entries ? hour : best), hours[0]);
  const peak = report.peak_inside;
  return (
    `${plural(entries, 'entry', 'entries')} hour by hour from ${when(hours[0].hour, timeZone)} ` +
    `to ${when(Date.parse(hours.at(-1).hour) + 3_600_000, timeZone)} (${timeZone}). ` +
    `The busiest hour began at ${timeOf(busiest.hour, timeZone)} with ${plural(busiest.entries, 'entry', 'entries')}. ` +
    (peak?.at ? `The most inside at once: ${peak.inside}, at ${when(peak.at, timeZone)}.` : 'Nobody was inside.')
  );
}

/** The report's "Entries and exits per gate" chart: two bars per gate, named as the table names them. */
export function gateChart(byGate, nameOf) {
  const categories = byGate.map((gate) => nameOf(gate.gate_id));
  const words = byGate.map(
    (gate, i) =>
      `${categories[i]}: ${plural(gate.entries, 'entry', 'entries')}, ${plural(gate.exits, 'exit', 'exits')}`,
  );
  return categoryChart({
    label: 'Entries and exits per gate',
    summary: byGate.length === 0 ? 'No scan at any gate.' : `${words.join('; ')}.`,
    categories,
    series: [
      { label: 'Entries', color: COLORS[0], values: byGate.map((gate) => gate.entries) },
      { label: 'Exits', color: COLORS[4], values: byGate.map((gate) => gate.exits) },
    ],
  });
}

/** The report's "Checked in and no-shows per ticket type" chart: two bars per type. */
export function typeChart(byType) {
  const words = byType.map(
    (type) => `${type.ticket_type}: ${type.checked_in} of ${type.issued} checked in, ${type.no_show} no-shows`,
  );
  return categoryChart({
    label: 'Checked in and no-shows per ticket type',
    summary: byType.length === 0 ? 'No tickets.' : `${words.join('; ')}.`,
    categories: byType.map((type) => type.ticket_type),
    series: [
      { label: 'Holders checked in', color: COLORS[0], values: byType.map((type) => type.checked_in) },
      { label: 'No-shows', color: COLORS[4], values: byType.map((type) => type.no_show) },
    ],
  });
}
