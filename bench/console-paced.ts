/**
 * Check-ins at a steady rate while console pages poll an event, and while they are paused (a hidden
 * tab polls nothing), the way an organizer's open pages load the gates: each check-in's latency is
 * counted from when it was due (a client does not wait for the issuer's event loop to be free before
 * it sends), and its p99 taken per phase and per 5-second window.
 */
import { randomUUID } from 'node:crypto';
import { refresh } from './console-seed.ts';
import { ADMIN, type App, type BenchEvent, quantile } from './inject.ts';

/** The console page's pace (console/js/views/event.js): live reads every 2 s, the slow ones every third time. */
const LIVE_MS = 2000;
const SLOW_EVERY = 3;
const WINDOW_MS = 5000;
const PAGES = 3;

export interface PacedOptions {
  /** Check-ins per second. */
  rate: number;
  /** Length of each phase, paused then polling, in ms. */
  phaseMs: number;
  /** Pairs of phases (paused, polling). */
  pairs: number;
}

export interface PacedResult {
  /** Per pair: the p99 of the paused phase and of the polling one (ms). */
  phases: { paused: number; polling: number }[];
  /** Per 5-second window, in order: whether the pages polled, and the p99 (ms). */
  windows: { polling: boolean; p99: number }[];
  /** Console API calls made by the pages in all. */
  calls: number;
  /** Check-ins in all. */
  checkIns: number;
}

/** A console session cookie, as the pages send it (signed in with the admin token). */
async function sessionCookie(app: App): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/admin/v1/session', payload: { admin_token: ADMIN } });
  if (res.statusCode !== 201) throw new Error(`${res.statusCode} ${res.body}`);
  const cookie = res.cookies[0];
  if (!cookie) throw new Error('no session cookie');
  return `${cookie.name}=${cookie.value}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the phases; `tids` must hold at least rate × phase length × 2 × pairs unused tickets. */
export async function pacedCheckIns(
  app: App,
  target: BenchEvent,
  tids: string[],
  options: PacedOptions,
): Promise<PacedResult> {
  const headers = { cookie: await sessionCookie(app) };
  const intervalMs = 1000 / options.rate;
  const phaseCount = options.pairs * 2;
  const totalMs = options.phaseMs * phaseCount;
  const count = Math.floor(totalMs / intervalMs);
  if (tids.length < count) throw new Error(`${count} tickets needed, ${tids.length} given`);
  const polling = (at: number) => Math.floor(at / options.phaseMs) % 2 === 1;
  const latencies: { due: number; ms: number }[] = [];
  const t0 = performance.now();
  let calls = 0;
  let stop = false;

  const pages = Array.from({ length: PAGES }, async (_, page) => {
    await sleep((page * LIVE_MS) / PAGES);
    for (let tick = 0; !stop; tick++) {
      if (polling(performance.now() - t0)) {
        const slow = tick % SLOW_EVERY === 0;
        calls += slow ? 8 : 4;
        await refresh(app, target.eid, slow, headers).catch(() => undefined);
      }
      await sleep(LIVE_MS);
    }
  });

  const pending: Promise<void>[] = [];
  let next = 0;
  while (next < count) {
    const now = performance.now() - t0;
    for (; next < count && next * intervalMs <= now; next++) {
      const due = next * intervalMs;
      const tid = tids[next]!;
      pending.push(
        app
          .inject({
            method: 'POST',
            url: '/api/v1/tickets/check-in',
            headers: target.headers,
            payload: {
              tid,
              eid: target.eid,
              scanned_at: new Date().toISOString(),
              scanner_id: target.scannerId,
              idempotency_key: randomUUID(),
            },
          })
          .then((res) => {
            if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
            latencies.push({ due, ms: performance.now() - t0 - due });
          }),
      );
    }
    await sleep(1);
  }
  await Promise.all(pending);
  stop = true;
  await Promise.all(pages);

  const p99 = (from: number, to: number) =>
    quantile(
      latencies.filter((l) => l.due >= from && l.due < to).map((l) => l.ms),
      0.99,
    );
  const phases = Array.from({ length: options.pairs }, (_, i) => ({
    paused: p99(2 * i * options.phaseMs, (2 * i + 1) * options.phaseMs),
    polling: p99((2 * i + 1) * options.phaseMs, (2 * i + 2) * options.phaseMs),
  }));
  const windows = Array.from({ length: Math.ceil(totalMs / WINDOW_MS) }, (_, i) => ({
    polling: polling(i * WINDOW_MS),
    p99: p99(i * WINDOW_MS, (i + 1) * WINDOW_MS),
  }));
  return { phases, windows, calls, checkIns: latencies.length };
}

/** The target: the p99 with pages polling within 1.5 times, or 20 ms, of the paused one. */
export const withinTarget = (paused: number, polling: number): boolean =>
  polling <= paused * 1.5 || polling <= paused + 20;
