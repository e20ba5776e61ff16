/** Waiting on the cluster and on the scanners' report, as the high-availability tests do. */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { call } from '../helpers/server.ts';
import { type GateReport, recoveredAfter } from './gate-load.ts';

/** The contract's bound: check-ins succeed again within 30 s of each kill. */
export const BACK_WITHIN_MS = 30_000;

/** Sends until the answer is not a 503 (as a scanner does, after Retry-After), for at most 30 s. */
export async function retried(send: () => ReturnType<typeof call>): ReturnType<typeof call> {
  const started = Date.now();
  for (;;) {
    const answer = await send();
    if (answer.status !== 503 || Date.now() - started > BACK_WITHIN_MS) return answer;
    await sleep(Number(answer.headers.get('retry-after')) * 1000);
  }
}

/** Waits until the scanners have `count` final answers. */
export async function answered(report: GateReport, count: number): Promise<void> {
  await moment(`${count} scans answered`, 60_000, async () => report.answers.size >= count);
}

/** Milliseconds from the kill to the next check-in answered 200 (sent after it); fails past 30 s. */
export async function backAfter(report: GateReport, killedAt: number, what: string): Promise<number> {
  for (;;) {
    const back = recoveredAfter(report, killedAt);
    if (back !== null) return back;
    assert.ok(Date.now() - killedAt <= BACK_WITHIN_MS, `no check-in answered 200 within 30 s of killing ${what}`);
    await sleep(50);
  }
}

/** The moment `probe` first holds (polled every 100 ms), or a failure after `withinMs`. */
export async function moment(what: string, withinMs: number, probe: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (Date.now() - started <= withinMs) {
    if (await probe().catch(() => false)) return Date.now();
    await sleep(100);
  }
  throw new Error(`${what}: not within ${withinMs} ms`);
}

/** An instance's issuer_rate_limit_shared gauge (asked of the instance itself, not through HAProxy). */
export async function sharedGauge(port: number, admin: string): Promise<string | undefined> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${admin}` } });
  return /^issuer_rate_limit_shared (\d)/m.exec(await res.text())?.[1];
}

export const seconds = (ms: number) => (ms / 1000).toFixed(1);
