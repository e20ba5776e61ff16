/**
 * Scanners at the gates, through the load balancer: each enrolled through the admin API, sending one
 * check-in at a time with a new ticket and idempotency key, and keeping the scan until it has a final
 * answer (2xx or 4xx): on a 503 it waits as Retry-After says, on a network error or a timeout it
 * waits a moment, then sends the same scan again under the same key (the spec's retry rule). Every
 * answer a scanner may never get is written down: a 5xx other than 503, a 503 without Retry-After or
 * without the JSON error envelope (HAProxy's own pages included), an answer that is not JSON.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LoadReport } from '../helpers/scan-load.ts';
import { enrollScanner } from '../helpers/server.ts';

export interface GateReport extends LoadReport {
  /** Scans that needed more than one send. */
  scansRetried: number;
  /** Network errors and time-outs met (each followed by a retry). */
  networkErrors: number;
  /** When each network error or time-out happened, and what it was. */
  networkErrorLog: { at: number; error: string }[];
  /** When each request answered 200 was sent (ms since the epoch). */
  okSentTimes: number[];
}

export async function runGates(options: {
  base: string;
  admin: string;
  eid: string;
  tids: string[];
  scanners: number;
  pauseMs: number;
  requestTimeoutMs: number;
  until: () => boolean;
}): Promise<{ report: GateReport; done: Promise<void> }> {
  const report: GateReport = {
    answers: new Map(),
    violations: [],
    slowestMs: 0,
    retried: 0,
    okTimes: [],
    unavailableTimes: [],
    scansRetried: 0,
    networkErrors: 0,
    networkErrorLog: [],
    okSentTimes: [],
  };
  const devices = [];
  for (let i = 0; i < options.scanners; i += 1) {
    const device = await enrollScanner(options.base, options.admin, options.eid);
    // enrollScanner reads the key without looking at the answer: a refused enrolment must not pass for a key.
    assert.match(device.apiKey, /^sk_live_/, `scanner ${i + 1} was not enrolled`);
    devices.push(device);
  }
  const done = Promise.all(
    devices.map(async (device, d) => {
      for (let i = 0; !options.until(); i += 1) {
        const tid = options.tids[(d * 7919 + i * 104729) % options.tids.length]!;
        const scan = { tid, eid: options.eid, scanner_id: device.scannerId, idempotency_key: randomUUID() };
        await sendUntilAnswered(options, device.apiKey, { ...scan, scanned_at: new Date().toISOString() }, report);
        await sleep(options.pauseMs);
      }
    }),
  ).then(() => undefined);
  return { report, done };
}

async function sendUntilAnswered(
  options: { base: string; requestTimeoutMs: number },
  apiKey: string,
  scan: { tid: string; idempotency_key: string; [field: string]: string },
  report: GateReport,
): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    if (attempt === 1) report.scansRetried += 1;
    const sent = Date.now();
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${options.base}/api/v1/tickets/check-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
        body: JSON.stringify(scan),
        signal: AbortSignal.timeout(options.requestTimeoutMs),
      });
      text = await res.text();
    } catch (error) {
      report.networkErrors += 1;
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      report.networkErrorLog.push({ at: Date.now(), error: `${String(error)} ${cause?.code ?? cause?.message ?? ''}` });
      report.retried += 1;
      await sleep(250);
      continue;
    }
    report.slowestMs = Math.max(report.slowestMs, Date.now() - sent);
    let body: { status?: string; error?: { code?: string } };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      report.violations.push(`${res.status} that is not JSON: ${text.slice(0, 200)}`);
      await sleep(250);
      continue;
    }
    if (res.status === 503) {
      report.unavailableTimes.push(Date.now());
      const retryAfter = Number(res.headers.get('retry-after'));
      if (!(retryAfter > 0)) report.violations.push(`503 without Retry-After: ${text}`);
      if (body.error?.code !== 'UNAVAILABLE' || !res.headers.get('content-type')?.startsWith('application/json')) {
        report.violations.push(`503 without the UNAVAILABLE envelope: ${text}`);
      }
      report.retried += 1;
      await sleep(Math.min((retryAfter || 1) * 1000, 2000));
      continue;
    }
    if (res.status >= 500) {
      report.violations.push(`${res.status}: ${text}`);
      await sleep(250);
      continue;
    }
    if (res.status === 200) {
      report.okTimes.push(Date.now());
      report.okSentTimes.push(sent);
    }
    report.answers.set(scan.idempotency_key, {
      tid: scan.tid,
      status: res.status,
      outcome: String(body.status ?? body.error?.code),
    });
    return;
  }
}

/** Milliseconds from `since` to the first 200 answer to a request sent at or after it, or null if none yet. */
export function recoveredAfter(report: GateReport, since: number): number | null {
  let first: number | null = null;
  for (const [i, sent] of report.okSentTimes.entries()) {
    if (sent >= since && (first === null || report.okTimes[i]! < first)) first = report.okTimes[i]!;
  }
  return first === null ? null : first - since;
}
