import type { ArrivalCount, Store } from '../store/store.ts';
import { requireEvent } from './events.ts';
import { toStored, toWire } from './time.ts';

/** Bucket widths of the arrivals chart, in minutes: the smallest that keeps it to about 48 points. */
const BUCKET_MINUTES = [1, 5, 10, 15, 30, 60, 120, 360, 720, 1440];
const MAX_POINTS = 48;
const MINUTE_MS = 60_000;

/** Entries per gate per time bucket, as the arrivals answer gives them. */
export interface Arrivals {
  bucket_minutes: number;
  /** Each bucket's start (ISO 8601 UTC), oldest first. */
  buckets: string[];
  /** Per gate (null: scans that named none), in gate_id order: entries per bucket and in all. */
  gates: { gate_id: string | null; entries: number[]; total: number }[];
}

/**
 * Entries per gate per bucket from an event's entries per minute and gate: the buckets span from the
 * first entry's minute to the last's, the narrowest width that keeps them to about 48.
 */
export function arrivalsOf(rows: ArrivalCount[]): Arrivals {
  if (rows.length === 0) return { bucket_minutes: 1, buckets: [], gates: [] };
  const times = rows.map((row) => Date.parse(`${row.minute}:00.000Z`));
  const first = Math.min(...times);
  const last = Math.max(...times);
  const minutes = BUCKET_MINUTES.find((m) => (last - first) / (m * MINUTE_MS) < MAX_POINTS) ?? 1440;
  const bucketMs = minutes * MINUTE_MS;
  const start = Math.floor(first / bucketMs) * bucketMs;
  const size = Math.floor((last - start) / bucketMs) + 1;
  const gates = new Map<string, { gate_id: string | null; entries: number[]; total: number }>();
  rows.forEach((row, i) => {
    const key = row.gate_id ?? '';
    const gate = gates.get(key) ?? { gate_id: row.gate_id, entries: new Array<number>(size).fill(0), total: 0 };
    gate.entries[Math.floor((times[i]! - start) / bucketMs)]! += row.entries;
    gate.total += row.entries;
    gates.set(key, gate);
  });
  return {
    bucket_minutes: minutes,
    buckets: Array.from({ length: size }, (_, i) => toWire(toStored(new Date(start + i * bucketMs)))),
    gates: [...gates.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, gate]) => gate),
  };
}

/** The arrivals answer of an event, from its kept counts (a row per minute and gate that had entries). */
export async function arrivalsView(store: Store, eid: string): Promise<Arrivals> {
  const event = await requireEvent(store, eid);
  return arrivalsOf(await store.checkIns.arrivals(event.eid));
}
