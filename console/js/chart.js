import uPlot from '../vendor/uPlot.esm.js';
import { h, replace, uid } from './dom.js';
import { axisLabels } from './time.js';
import { plural } from './words.js';

/** The label of a gate in the chart and its legend. */
const gateLabel = (gateId) => gateId ?? 'No gate';

/** Distinguishable on white, each with at least 3:1 contrast. */
export const COLORS = ['#1b5fb4', '#b3261e', '#2e7d32', '#7b1fa2', '#a35200', '#00695c'];
const HEIGHT = 220;

/**
 * A time axis (uPlot's x axis) in the console's one date format (time.js), in `timeZone` (the
 * browser's when none): its ticks fall on that zone's hours and read as everywhere else.
 */
export function timeAxis(label, timeZone) {
  return {
    stroke: '#333',
    // Two lines: the time, and the date under the first tick of each day.
    size: 58,
    label,
    labelSize: 18,
    values: (_u, ticks) => axisLabels(ticks, timeZone),
  };
}

/** uPlot's options that put the ticks of a time scale on `timeZone`'s hours. */
export const zoned = (timeZone) => (timeZone ? { tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), timeZone) } : {});

/**
 * The "Arrivals over time" chart (uPlot): entries (each re-entry included) per gate per time bucket. The plot is one image
 * to assistive technology (role="img"), described by a text summary; the legend is plain text.
 */
export function arrivalsChart() {
  const summary = h('p', { id: uid('arrivals-summary'), class: 'muted', text: 'No entries yet.' });
  const area = h('div', { class: 'plot' });
  const figure = h(
    'div',
    { class: 'chart empty', role: 'img', 'aria-label': 'Arrivals over time', 'aria-describedby': summary.id },
    area,
  );
  const legend = h('ul', { class: 'legend' });
  let plot = null;
  let plottedGates = '';
  const resize = new ResizeObserver(() => plot?.setSize({ width: area.clientWidth, height: HEIGHT }));
  resize.observe(area);

  /** Draws the issuer's arrivals answer (entries per gate in buckets of `bucket_minutes`). */
  function update(answer) {
    if (answer.buckets.length === 0) return;
    const arrivals = {
      bucketMinutes: answer.bucket_minutes,
      // Bucket starts in seconds, as uPlot wants them.
      x: answer.buckets.map((start) => Date.parse(start) / 1000),
      gates: answer.gates.map((gate) => ({ label: gateLabel(gate.gate_id), counts: gate.entries, total: gate.total })),
    };
    // Rates per minute, whatever the bucket: the axis reads the same as the event grows.
    const perMinute = (count) => count / arrivals.bucketMinutes;
    const data = [arrivals.x, ...arrivals.gates.map((gate) => gate.counts.map(perMinute))];
    // A single bucket gets a fixed half hour on each side (left alone, the time axis spans years).
    const single = arrivals.x.length === 1 ? arrivals.x[0] : null;
    const gates = `${arrivals.gates.map((gate) => gate.label).join('\n')}\n${single}`;
    if (plot && gates === plottedGates) plot.setData(data);
    else {
      plot?.destroy();
      plot = new uPlot(options(arrivals.gates, single), data, area);
      figure.classList.remove('empty');
      plottedGates = gates;
    }
    const total = arrivals.gates.reduce((sum, gate) => sum + gate.total, 0);
    const perGate = arrivals.gates.map((gate) => `${gate.label} ${gate.total}`).join(', ');
    summary.textContent = `${plural(total, 'entry', 'entries')} (each re-entry counts) in ${arrivals.bucketMinutes}-minute steps, drawn per minute against local time: ${perGate}.`;
    replace(
      legend,
      arrivals.gates.map((gate, i) => legendItem(gate, COLORS[i % COLORS.length])),
    );
  }

  function options(gates, single) {
    return {
      width: area.clientWidth || 320,
      height: HEIGHT,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      // Room on the right and the left so that no tick label is cut off.
      padding: [12, 24, 0, 8],
      scales: {
        // Local time (uPlot's default).
        x: single === null ? { time: true } : { time: true, auto: false, min: single - 1800, max: single + 1800 },
        y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
      },
      axes: [timeAxis('Local time'), { stroke: '#333', size: 48, label: 'Entries per minute', labelSize: 18 }],
      series: [
        {},
        ...gates.map((gate, i) => ({
          label: gate.label,
          stroke: COLORS[i % COLORS.length],
          width: 2,
          points: { show: true },
        })),
      ],
    };
  }

  return {
    node: h('div', { class: 'arrivals' }, figure, summary, legend),
    update,
    destroy: () => {
      resize.disconnect();
      plot?.destroy();
    },
  };
}

function legendItem(gate, color) {
  const swatch = h('span', { class: 'swatch', 'aria-hidden': 'true' });
  swatch.style.backgroundColor = color;
  return h('li', {}, swatch, `${gate.label}: ${gate.total}`);
}
