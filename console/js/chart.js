import uPlot from '../vendor/uPlot.esm.js';
import { arrivalsByGate } from './arrivals.js';
import { h, replace, uid } from './dom.js';

/** Distinguishable on white, each with at least 3:1 contrast. */
const COLORS = ['#1b5fb4', '#b3261e', '#2e7d32', '#7b1fa2', '#a35200', '#00695c'];
const HEIGHT = 220;

/**
 * The "Arrivals over time" chart (uPlot): check-ins per gate per time bucket. The plot is one image
 * to assistive technology (role="img"), described by a text summary; the legend is plain text.
 */
export function arrivalsChart() {
  const summary = h('p', { id: uid('arrivals-summary'), class: 'muted', text: 'No check-ins yet.' });
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

  function update(scans) {
    const arrivals = arrivalsByGate(scans);
    if (!arrivals) return;
    const data = [arrivals.x, ...arrivals.gates.map((gate) => gate.counts)];
    const gates = arrivals.gates.map((gate) => gate.label).join('\n');
    if (plot && gates === plottedGates) plot.setData(data);
    else {
      plot?.destroy();
      plot = new uPlot(options(arrivals.gates), data, area);
      figure.classList.remove('empty');
      plottedGates = gates;
    }
    const total = arrivals.gates.reduce((sum, gate) => sum + gate.total, 0);
    const perGate = arrivals.gates.map((gate) => `${gate.label} ${gate.total}`).join(', ');
    summary.textContent = `${total} ${total === 1 ? 'check-in' : 'check-ins'} in ${arrivals.bucketMinutes}-minute steps: ${perGate}.`;
    replace(
      legend,
      arrivals.gates.map((gate, i) => legendItem(gate, COLORS[i % COLORS.length])),
    );
  }

  function options(gates) {
    return {
      width: area.clientWidth || 320,
      height: HEIGHT,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      axes: [{ stroke: '#333' }, { stroke: '#333', size: 40 }],
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
