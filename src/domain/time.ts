/**
 * Instants. The store keeps every instant as `Date#toISOString()` (millisecond precision, `Z`),
 * which sorts as text on every backend; answers drop a zero millisecond part.
 */

const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]00:?00)$/i;

/** Parses an ISO 8601 UTC timestamp strictly: real calendar dates only, UTC designator required. */
export function parseUtcInstant(text: string): Date | null {
  const m = ISO_UTC.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms));
  if (year < 1970 || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return date;
}

/** The last instant the stored form can hold: past it, `toISOString()` writes a six-digit year. */
export const LATEST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** The stored form of an instant; instants past the year 9999 (a default derived from a far date) are held at its end. */
export function toStored(date: Date): string {
  return new Date(Math.min(date.getTime(), LATEST_INSTANT)).toISOString();
}

/** The answered form of a stored instant: `YYYY-MM-DDThh:mm:ssZ`, with milliseconds only if any. */
export function toWire(stored: string): string;
export function toWire(stored: string | null): string | null;
export function toWire(stored: string | null): string | null {
  if (stored === null) return null;
  return stored.endsWith('.000Z') ? `${stored.slice(0, -5)}Z` : stored;
}

export const HOUR_MS = 60 * 60 * 1000;
