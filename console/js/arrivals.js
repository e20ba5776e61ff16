/** Bucket widths for the arrivals chart, in minutes: the smallest that keeps the chart to about 48 points. */
const BUCKET_MINUTES = [1, 5, 10, 15, 30, 60, 120, 360, 720, 1440];
const MAX_POINTS = 48;
const MINUTE_MS = 60_000;

/** The label of a gate in the chart and its legend. */
export const gateLabel = (gateId) => gateId ?? 'No gate';

/**
 * Check-ins per gate per time bucket, from the scan log: each ticket's valid (not replayed) scan,
 * at its `scanned_at`. Null when there is none yet.
 */
export function arrivalsByGate(scans) {
  const valid = scans.filter((scan) => scan.outcome === 'valid' && !scan.replay);
  if (valid.length === 0) return null;
  const times = valid.map((scan) => Date.parse(scan.scanned_at));
  const first = times.reduce((a, b) => Math.min(a, b));
  const last = times.reduce((a, b) => Math.max(a, b));
  const minutes = BUCKET_MINUTES.find((m) => (last - first) / (m * MINUTE_MS) < MAX_POINTS) ?? 1440;
  const bucketMs = minutes * MINUTE_MS;
  const start = Math.floor(first / bucketMs) * bucketMs;
  const size = Math.floor((last - start) / bucketMs) + 1;
  const gates = new Map();
  valid.forEach((scan, i) => {
    const label = gateLabel(scan.gate_id);
    if (!gates.has(label)) gates.set(label, new Array(size).fill(0));
    gates.get(label)[Math.floor((times[i] - start) / bucketMs)] += 1;
  });
  return {
    bucketMinutes: minutes,
    /** Bucket starts in seconds, as uPlot wants them. */
    x: Array.from({ length: size }, (_, i) => (start + i * bucketMs) / 1000),
    gates: [...gates.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([label, counts]) => ({ label, counts, total: counts.reduce((a, b) => a + b, 0) })),
  };
}
