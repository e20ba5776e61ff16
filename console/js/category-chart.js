import uPlot from '../vendor/uPlot.esm.js';
import { h, uid } from './dom.js';

const HEIGHT = 200;
/** Each category's bars share this much of its slot, split between the series side by side. */
const GROUP = 0.8;
/** The steps between the count axis' ticks: 1, 2, 5, 10, 20, 50… */
const WHOLE_STEPS = Array.from({ length: 21 }, (_, i) => [1, 2, 5][i % 3] * 10 ** Math.floor(i / 3));

/**
 * A bar chart of a few numbers per category (uPlot): one bar per series side by side over each
 * category (a gate, a ticket type). As the report's other chart, the plot is one image to assistive
 * technology (role="img"), named by `label` and described by `summary`; the legend is plain text,
 * and the table the page shows beside it holds every number.
 *
 * `categories`: the names along the axis; `series`: [{ label, color, values }], a value per category.
 */
export function categoryChart({ label, summary, categories, series }) {
  const described = h('p', { id: uid('category-summary'), class: 'muted', text: summary });
  const area = h('div', { class: 'plot' });
  const empty = categories.length === 0;
  const figure = h(
    'div',
    { class: empty ? 'chart empty' : 'chart', role: 'img', 'aria-label': label, 'aria-describedby': described.id },
    area,
  );
  const legend = h(
    'ul',
    { class: 'legend' },
    series.map((s) => {
      const swatch = h('span', { class: 'swatch', 'aria-hidden': 'true' });
      swatch.style.backgroundColor = s.color;
      return h('li', {}, swatch, s.label);
    }),
  );
  let plot = null;
  const resize = new ResizeObserver(() => {
    if (empty) return;
    if (plot === null) plot = new uPlot(options(categories, series, area.clientWidth), data(categories, series), area);
    else plot.setSize({ width: area.clientWidth, height: HEIGHT });
  });
  resize.observe(area);
  return {
    node: h('div', { class: 'category-chart' }, figure, described, empty ? null : legend),
    destroy: () => {
      resize.disconnect();
      plot?.destroy();
    },
  };
}

/** The categories at 0, 1, 2…, then each series' values. */
const data = (categories, series) => [categories.map((_, i) => i), ...series.map((s) => s.values)];

/**
 * Bars side by side: series i of n starts at its category less half the group, plus i bars' widths
 * (uPlot's `disp`: each bar's left edge and width, in the x scale's units).
 */
function options(categories, series, width) {
  const size = GROUP / series.length;
  return {
    width: width || 320,
    height: HEIGHT,
    legend: { show: false },
    cursor: { show: false },
    padding: [12, 12, 0, 8],
    scales: {
      x: { time: false, range: () => [-0.5, categories.length - 0.5] },
      y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
    },
    axes: [
      {
        stroke: '#333',
        size: 40,
        splits: () => categories.map((_, i) => i),
        values: (_u, ticks) => ticks.map((t) => categories[t] ?? ''),
        grid: { show: false },
      },
      // Whole numbers only: these are counts.
      { stroke: '#333', size: 56, label: 'Count', labelSize: 18, incrs: WHOLE_STEPS },
    ],
    series: [
      {},
      ...series.map((s, i) => ({
        label: s.label,
        stroke: s.color,
        fill: s.color,
        width: 0,
        points: { show: false },
        paths: uPlot.paths.bars({
          disp: {
            x0: { unit: 1, values: (u) => u.data[0].map((x) => x - GROUP / 2 + i * size) },
            size: { unit: 1, values: (u) => u.data[0].map(() => size) },
          },
        }),
      })),
    ],
  };
}
