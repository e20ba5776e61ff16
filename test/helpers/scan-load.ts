import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { call, enrollScanner } from './server.ts';

/** One scan as a scanner keeps it until the issuer gives it a final answer. */
interface Scan {
  tid: string;
  idempotency_key: string;
  scanned_at: string;
}

/** What the load saw: every final answer, and everything that broke a rule on the way. */
export interface LoadReport {
  /** Final answers by idempotency key: the outcome (`status`) or the error code. */
  answers: Map<string, { tid: string; status: number; outcome: string }>;
  /** Answers that no scanner may ever get: a 5xx other than 503 with Retry-After, a 503 without it. */
  violations: string[];
  /** The slowest answer, in ms (a request that got none counts with its timeout). */
  slowestMs: number;
  /** How many 503s and network errors the scanners rode out by retrying. */
  retried: number;
  /** When each 2xx answer arrived (ms since the epoch), to see when the issuer served again. */
  okTimes: number[];
  /** When each 503 arrived. */
  unavailableTimes: number[];
}

/**
 * Scanners syncing at the gates: each enrolled through the API, sending its queue one scan at a time
 * (`pauseMs` apart) as a scanner's sync does: on a 503 it waits as Retry-After says (at most
 * `maxWaitMs`) and sends the same scan again under the same idempotency key; on a network error or a
 * timeout, the same. A scan leaves the queue only with a final answer (2xx or 4xx).
 */
export async function runScanners(options: {
  base: string;
  admin: string;
  eid: string;
  tids: string[];
  scanners: number;
  /** Scans each scanner sends at most (default: until `until` says stop). */
  scansEach?: number;
  pauseMs: number;
  requestTimeoutMs: number;
  maxWaitMs?: number;
  until?: () => boolean;
}): Promise<{ report: LoadReport; done: Promise<void> }> {
  const report: LoadReport = {
    answers: new Map(),
    violations: [],
    slowestMs: 0,
    retried: 0,
    okTimes: [],
    unavailableTimes: [],
  };
  const devices = await Promise.all(
    Array.from({ length: options.scanners }, () => enrollScanner(options.base, options.admin, options.eid)),
  );
  const done = Promise.all(
    devices.map(async (device, d) => {
      for (let i = 0; i < (options.scansEach ?? Infinity); i += 1) {
        if (options.until?.()) return;
        const tid = options.tids[(d * 7919 + i * 104729) % options.tids.length]!;
        const scan = { tid, idempotency_key: randomUUID(), scanned_at: new Date().toISOString() };
        await sendUntilAnswered(options, device, scan, report);
        await sleep(options.pauseMs);
      }
    }),
  ).then(() => undefined);
  return { report, done };
}

async function sendUntilAnswered(
  options: { base: string; eid: string; requestTimeoutMs: number; maxWaitMs?: number },
  device: { scannerId: string; apiKey: string },
  scan: Scan,
  report: LoadReport,
): Promise<void> {
  const body = { ...scan, eid: options.eid, scanner_id: device.scannerId };
  for (;;) {
    const started = Date.now();
    let answer: Awaited<ReturnType<typeof call>> | null = null;
    try {
      answer = await call(`${options.base}/api/v1/tickets/check-in`, {
        bearer: device.apiKey,
        body,
        signal: AbortSignal.timeout(options.requestTimeoutMs),
      });
    } catch {
      answer = null;
    }
    const took = Date.now() - started;
    report.slowestMs = Math.max(report.slowestMs, took);
    if (answer === null) {
      // No answer in time (or a connection error): the scanner keeps the scan and tries again.
      report.retried += 1;
      await sleep(250);
      continue;
    }
    if (answer.status === 503) {
      report.unavailableTimes.push(Date.now());
      const retryAfter = Number(answer.headers.get('retry-after'));
      if (!(retryAfter > 0)) report.violations.push(`503 without Retry-After: ${answer.text}`);
      report.retried += 1;
      await sleep(Math.min(retryAfter * 1000 || 1000, options.maxWaitMs ?? 500));
      continue;
    }
    if (answer.status >= 500) {
      report.violations.push(`${answer.status}: ${answer.text}`);
      await sleep(250);
      continue;
    }
    if (answer.status === 200) report.okTimes.push(Date.now());
    const error = answer.body.error as { code?: string } | undefined;
    report.answers.set(scan.idempotency_key, {
      tid: scan.tid,
      status: answer.status,
      outcome: String(answer.body.status ?? error?.code),
    });
    return;
  }
}

/** A new event with `count` tickets, through the admin API: its eid and the tickets (tid and token). */
export async function eventWithTickets(
  base: string,
  admin: string,
  name: string,
  count: number,
): Promise<{ eid: string; tickets: { tid: string; ticket_token: string }[] }> {
  const event = await call(`${base}/admin/v1/events`, {
    bearer: admin,
    body: { name, event_date: new Date().toISOString() },
  });
  const eid = String(event.body.eid);
  const issued = await call(`${base}/admin/v1/events/${eid}/tickets`, {
    bearer: admin,
    body: { tickets: Array.from({ length: count }, (_, i) => ({ holder_name: `Guest ${i}`, ticket_type: 'GA' })) },
  });
  return { eid, tickets: issued.body.tickets as { tid: string; ticket_token: string }[] };
}

/** Every scan-log row of an event, through the admin API. */
export async function scanLog(
  base: string,
  admin: string,
  eid: string,
): Promise<{ idempotency_key: string; tid: string; outcome: string; replay: boolean }[]> {
  const rows: { idempotency_key: string; tid: string; outcome: string; replay: boolean }[] = [];
  let cursor: string | null = null;
  let more = false;
  do {
    const query: string = `limit=1000${cursor ? `&cursor=${cursor}` : ''}`;
    const page = await call(`${base}/admin/v1/events/${eid}/scans?${query}`, { bearer: admin });
    rows.push(...(page.body.scans as typeof rows));
    cursor = page.body.next_cursor as string | null;
    // The log always answers a next_cursor (to ask again later); has_more says whether more is there now.
    more = page.body.has_more === true;
  } while (cursor && more);
  return rows;
}

/**
 * The rules a fault must not break, as failures: every answered scan is in the store exactly once (one
 * scan-log row that is not a replay), no ticket was answered `valid` twice, and the tickets checked in
 * are exactly those answered `valid`.
 */
export async function brokenPromises(base: string, admin: string, eid: string, report: LoadReport): Promise<string[]> {
  const problems: string[] = [];
  const firsts = new Map<string, number>();
  for (const row of await scanLog(base, admin, eid)) {
    if (!row.replay) firsts.set(row.idempotency_key, (firsts.get(row.idempotency_key) ?? 0) + 1);
  }
  const validTids = new Map<string, number>();
  for (const [key, answer] of report.answers) {
    if (firsts.get(key) !== 1)
      problems.push(`scan ${key} answered ${answer.outcome} is logged ${firsts.get(key) ?? 0} times`);
    if (answer.outcome === 'valid') validTids.set(answer.tid, (validTids.get(answer.tid) ?? 0) + 1);
  }
  for (const [tid, count] of validTids) if (count > 1) problems.push(`ticket ${tid} answered valid ${count} times`);
  const event = await call(`${base}/admin/v1/events/${eid}`, { bearer: admin });
  const checkedIn = (event.body.counters as { checked_in: number }).checked_in;
  if (checkedIn !== validTids.size) problems.push(`${checkedIn} tickets checked in, ${validTids.size} answered valid`);
  return problems;
}
