/**
 * How long `ticket-scanner sync` takes to upload a large offline queue to a local issuer, beside a
 * floor: the same number of bare check-ins sent over kept-alive node:http connections with as many
 * in flight, nothing stored, measured before and after. The ratio is what the scanner adds; machines
 * vary, ratios hold. The machine's speed drifts from one minute to the next, so the scan and the sync
 * run several rounds, each on fresh tickets, and the median is the figure.
 * Run: node --import tsx packages/scanner/bench/sync.ts [count] [rounds]   (default 10,000 and 3)
 */
import { readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { SYNC_IN_FLIGHT } from '../src/sync.ts';
import { runCli } from '../test/cli-process.ts';
import { Issuer, tempDir } from '../test/issuer.ts';

const count = Number(process.argv[2] ?? 10_000);
const rounds = Number(process.argv[3] ?? 3);

type Ticket = { tid: string; token: string };

/** Bare check-ins: one request each on kept-alive connections, SYNC_IN_FLIGHT at a time, nothing stored. */
async function floor(issuer: Issuer, eid: string, dir: string, tickets: Ticket[]): Promise<number> {
  const { api_key } = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')) as { api_key: string };
  const { scanner_id } = JSON.parse(readFileSync(join(dir, 'scanner.json'), 'utf8')) as { scanner_id: string };
  const agent = new http.Agent({ keepAlive: true });
  const url = new URL(`${issuer.url}/api/v1/tickets/check-in`);
  const send = (t: Ticket) =>
    new Promise<void>((resolve, reject) => {
      const body = JSON.stringify({
        tid: t.tid,
        eid,
        scanner_id,
        scanned_at: new Date().toISOString(),
        idempotency_key: crypto.randomUUID(),
        ticket_token: t.token,
      });
      const headers = {
        authorization: `Bearer ${api_key}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      };
      http
        .request(url, { method: 'POST', agent, headers }, (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
        })
        .on('error', reject)
        .end(body);
    });
  let next = 0;
  const worker = async () => {
    while (next < tickets.length) await send(tickets[next++]!);
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: SYNC_IN_FLIGHT }, worker));
  const ms = performance.now() - started;
  agent.destroy();
  return ms;
}

async function issue(issuer: Issuer, eid: string, n: number): Promise<Ticket[]> {
  const tickets = [];
  for (let i = 0; i < n; i += 10_000) tickets.push(...(await issuer.issue(eid, Math.min(10_000, n - i))));
  return tickets;
}

/** CPU seconds the issuer process has used so far (Linux), or NaN elsewhere. */
function issuerCpu(issuer: Issuer): number {
  try {
    const fields = readFileSync(`/proc/${issuer.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const rate = (ms: number) => `${Math.round((count / ms) * 1000)}/s`;
const ms = (value: number) => `${Math.round(value)} ms`;

const issuer = await Issuer.start();
const stateParent = tempDir();
try {
  const eid = await issuer.createEvent('Sync benchmark');
  const dir = join(stateParent, 'state');
  const enrolled = await runCli(['enroll', await issuer.setupUri(eid), '--state', dir]);
  if (enrolled.code !== 0) throw new Error(enrolled.stderr);

  // The floor before, which also warms the issuer up; a sync of an empty queue then moves the
  // scanner's feed cursor past those check-ins, so that each round pulls only its own.
  const floorBefore = await floor(issuer, eid, dir, await issue(issuer, eid, count));
  await runCli(['sync', '--state', dir], { timeoutMs: 300_000 });

  const results: { scanMs: number; syncMs: number; cpu: number; report: string }[] = [];
  for (let round = 1; round <= rounds; round++) {
    const tickets = await issue(issuer, eid, count);
    let started = performance.now();
    const scan = await runCli(['scan', '--offline', '--state', dir, '--json'], {
      stdin: tickets.map((t) => t.token).join('\n'),
      timeoutMs: 300_000,
    });
    const scanMs = performance.now() - started;
    if (scan.json.length !== count) throw new Error(`scanned ${scan.json.length} of ${count}: ${scan.stderr}`);
    const cpuBefore = issuerCpu(issuer);
    started = performance.now();
    const sync = await runCli(['sync', '--state', dir, '--json'], { timeoutMs: 300_000 });
    const syncMs = performance.now() - started;
    const cpu = issuerCpu(issuer) - cpuBefore;
    const report = sync.stdout.trim();
    const uploaded = (sync.json[0] as { uploaded?: number } | undefined)?.uploaded;
    if (sync.code !== 0 || uploaded !== count) throw new Error(`sync exit ${sync.code}: ${report} ${sync.stderr}`);
    results.push({ scanMs, syncMs, cpu, report });
    process.stdout.write(
      `round ${round}: offline scan ${ms(scanMs)} (${((scanMs / count) * 1000).toFixed(0)} µs a scan); ` +
        `sync ${ms(syncMs)} (${rate(syncMs)}), issuer CPU ${cpu.toFixed(1)} s\n`,
    );
  }
  const floorAfter = await floor(issuer, eid, dir, await issue(issuer, eid, count));
  const floorMs = (floorBefore + floorAfter) / 2;
  const syncMs = median(results.map((r) => r.syncMs));
  const scanMs = median(results.map((r) => r.scanMs));
  process.stdout.write(
    `${count} scans, ${SYNC_IN_FLIGHT} in flight, median of ${rounds} rounds:\n` +
      `  offline scan (each verdict durably queued before it is printed): ${ms(scanMs)}, ` +
      `${((scanMs / count) * 1000).toFixed(0)} µs a scan\n` +
      `  bare check-ins over node:http (floor): ${ms(floorBefore)} before, ${ms(floorAfter)} after (${rate(floorMs)})\n` +
      `  ticket-scanner sync: ${ms(syncMs)} (${rate(syncMs)}), ${(syncMs / floorMs).toFixed(2)} of the floor's time\n` +
      `  last sync's report: ${results.at(-1)!.report}\n`,
  );
} finally {
  await issuer.stop();
  for (const path of [issuer.dataDir, stateParent]) rmSync(path, { recursive: true, force: true });
}
