/**
 * The device's clock and the issuer's. Each sync of the rules measures how far off this device's
 * clock is (its time halfway through the request against the answer's `server_time`, or the `Date`
 * header of an issuer that does not say); scans are then stamped, and the entry rules judged, by the
 * device's clock corrected by that offset. The device's own clock still says when it sends (`sent_at`).
 */

/**
 * Offsets smaller than this are left alone: they are within the noise of one request's latency (and of
 * the `Date` header's whole seconds), and correcting them would only move stamps back and forth.
 */
export const CLOCK_NOISE_MS = 1000;

/** Above this the web scanner warns that the phone's clock is off (the contract's 2 minutes). */
export const CLOCK_WARNING_MS = 120_000;

/**
 * The issuer's time as this device reckons it: the device's clock minus the last measured offset
 * (read at each call, so a sync that measures again takes effect at once); the device's clock itself
 * when the offset is unknown or within the noise.
 */
export function correctedClock(deviceNow: () => Date, offsetMs: () => number | null): () => Date {
  return () => {
    const now = deviceNow();
    const offset = offsetMs();
    if (offset === null || Math.abs(offset) < CLOCK_NOISE_MS) return now;
    return new Date(now.getTime() - offset);
  };
}

/**
 * The issuer's clock from an answer's `Date` header (whole seconds, RFC 9110's IMF-fixdate), as an
 * ISO 8601 instant; null without a readable one.
 */
export function dateHeaderInstant(value: string | null): string | null {
  if (value === null) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/**
 * How far off a clock is, in whole minutes for people ("This phone's clock is 10 minutes off"), or
 * null while it is within `CLOCK_WARNING_MS` (or not known).
 */
export function clockOffMinutes(offsetMs: number | null): number | null {
  if (offsetMs === null || Math.abs(offsetMs) <= CLOCK_WARNING_MS) return null;
  return Math.round(Math.abs(offsetMs) / 60_000);
}
