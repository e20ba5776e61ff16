import uPlot from '../vendor/uPlot.esm.js';
import { COLORS, timeAxis, zoned } from './chart.js';
import { h, uid } from './dom.js';
import { timeOf, when } from './time.js';
import { plural } from './words.js';

const HEIGHT = 240;
const SERIES = [
  { key: 'entries', label: 'Entries in the hour', color: COLORS[0], dash: undefined },
  { key: 'inside_at_end', label: 'Inside at the end of the hour', color: COLORS[2], dash: [6, 4] },
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

/** Hour starts in seconds (as uPlot wants them), entries, inside. */
function data(hours) {
  return [
    hours.map((hour) => Date.parse(hour.hour) / 1000),
    ...SERIES.map((series) => hours.map((hour) => hour[series.key])),
  ];
}

function options(hours, timeZone, width) {
  // A single hour gets an hour on each side (left alone, the time axis spans years).
  const single = hours.length === 1 ? Date.parse(hours[0].hour) / 1000 : null;
  return {
    width: width || 320,
    height: HEIGHT,
    ...zoned(timeZone),
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    // Room on the right for the last tick's label.
    padding: [12, 40, 0, 8],
    scales: {
      x: single === null ? { time: true } : { time: true, auto: false, min: single - 3600, max: single + 3600 },
      y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
    },
    axes: [timeAxis(`Time in ${timeZone}`, timeZone), { stroke: '#333', size: 48, label: 'People', labelSize: 18 }],
    series: [
      {},
      ...SERIES.map((series) => ({
        label: series.label,
        stroke: series.color,
        width: 2,
        dash: series.dash,
        points: { show: true },
      })),
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
