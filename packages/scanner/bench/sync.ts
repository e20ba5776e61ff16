/**
 * How long `ticket-scanner sync` takes to upload a large offline queue to a local issuer, beside a
 * baseline: the same number of bare check-ins sent by a minimal fetch loop with as many in flight.
 * The ratio is what the scanner adds; machines vary, ratios hold.
 * Run: node --import tsx packages/scanner/bench/sync.ts [count]   (default 10,000)
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../test/cli-process.ts';
import { Issuer, tempDir } from '../test/issuer.ts';

const count = Number(process.argv[2] ?? 10_000);
const IN_FLIGHT = 16;

/** Bare check-ins: one fetch each, IN_FLIGHT at a time, nothing stored. */
async function baseline(issuer: Issuer, eid: string, dir: string, tickets: { tid: string; token: string }[]) {
  const { api_key } = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')) as { api_key: string };
  const { scanner_id } = JSON.parse(readFileSync(join(dir, 'scanner.json'), 'utf8')) as { scanner_id: string };
  let next = 0;
  const worker = async () => {
    while (next < tickets.length) {
      const t = tickets[next++]!;
      const res = await fetch(`${issuer.url}/api/v1/tickets/check-in`, {
        method: 'POST',
        headers: { authorization: `Bearer ${api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          tid: t.tid,
          eid,
          scanner_id,
          scanned_at: new Date().toISOString(),
          idempotency_key: crypto.randomUUID(),
          ticket_token: t.token,
        }),
      });
      await res.text();
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return Date.now() - started;
}

async function issue(issuer: Issuer, eid: string, n: number) {
  const tickets = [];
  for (let i = 0; i < n; i += 10_000) tickets.push(...(await issuer.issue(eid, Math.min(10_000, n - i))));
  return tickets;
}

const issuer = await Issuer.start();
const stateParent = tempDir();
try {
  const eid = await issuer.createEvent('Sync benchmark');
  const tickets = await issue(issuer, eid, count);
  const bare = await issue(issuer, eid, count);
  const dir = join(stateParent, 'state');
  const enrolled = await runCli(['enroll', await issuer.setupUri(eid), '--state', dir]);
  if (enrolled.code !== 0) throw new Error(enrolled.stderr);

  let started = Date.now();
  const scan = await runCli(['scan', '--offline', '--state', dir, '--json'], {
    stdin: tickets.map((t) => t.token).join('\n'),
    timeoutMs: 300_000,
  });
  const scanMs = Date.now() - started;
  if (scan.json.length !== count) throw new Error(`scanned ${scan.json.length} of ${count}: ${scan.stderr}`);

  const bareMs = await baseline(issuer, eid, dir, bare);
  started = Date.now();
  const sync = await runCli(['sync', '--state', dir, '--json'], { timeoutMs: 300_000 });
  const syncMs = Date.now() - started;
  const rate = (ms: number) => `${Math.round((count / ms) * 1000)}/s`;
  process.stdout.write(
    `${count} scans. offline scan: ${scanMs} ms (${rate(scanMs)}); bare check-ins: ${bareMs} ms (${rate(bareMs)}); ` +
      `sync: ${syncMs} ms (${rate(syncMs)}), ratio ${(syncMs / bareMs).toFixed(2)}, exit ${sync.code}\n${sync.stdout}`,
  );
} finally {
  await issuer.stop();
  for (const path of [issuer.dataDir, stateParent]) rmSync(path, { recursive: true, force: true });
}
