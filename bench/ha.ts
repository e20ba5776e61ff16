/**
 * The high-availability setup of deploy/ on one machine (test/ha's cluster: three Patroni-run
 * PostgreSQL nodes with synchronous replication, Redis with Sentinel, HAProxy, three issuers run as
 * the systemd unit says): check-ins per second sent straight to one instance, against the same sent
 * through HAProxy to one instance (what the proxy costs) and to two (what a second instance brings).
 * First scans of distinct tickets, 50 connections, rate limits lifted as in the other benchmarks;
 * rounds alternate so that every way sees the same machine; the table gives each way's median.
 *
 * Run: node --import tsx bench/ha.ts [check-ins per round]   (default 3000). Prints a table; never
 * fails; says why and stops when Patroni, etcd, HAProxy or Redis Sentinel is not installed.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { call, enrollScanner } from '../test/helpers/server.ts';
import { clusterMissing, HaCluster } from '../test/ha/cluster.ts';
import { load, type LoadResult } from './load.ts';
import { withoutRateLimits } from '../src/config-limits.ts';

const PER_ROUND = Number(process.argv[2] ?? 3000);
const ROUNDS = 3;
const CONNECTIONS = 50;
const UNLIMITED = withoutRateLimits();

const missing = clusterMissing();
if (missing !== null) {
  process.stdout.write(`\nHigh availability (bench/ha.ts): skipped, ${missing}\n`);
  process.exit(0);
}

const cluster = await HaCluster.start({ issuerEnv: { ...UNLIMITED, LOG_LEVEL: 'warn' } });
try {
  const admin = cluster.adminToken;
  const event = await call(`${cluster.url}/admin/v1/events`, {
    bearer: admin,
    body: { name: 'Bench', event_date: new Date(Date.now() + 3_600_000).toISOString() },
  });
  const eid = String(event.body.eid);
  const tids: string[] = [];
  for (let issued = 0; issued < PER_ROUND * ROUNDS * 3; issued += 5000) {
    const count = Math.min(5000, PER_ROUND * ROUNDS * 3 - issued);
    const batch = await call(`${cluster.url}/admin/v1/events/${eid}/tickets`, {
      bearer: admin,
      body: {
        tickets: Array.from({ length: count }, (_, i) => ({ holder_name: `Guest ${issued + i}`, ticket_type: 'GA' })),
      },
    });
    tids.push(...(batch.body.tickets as { tid: string }[]).map((t) => t.tid));
  }
  const scanner = await enrollScanner(cluster.url, admin, eid);
  let next = 0;
  const checkIns = (base: string) =>
    load({
      url: `${base}/api/v1/tickets/check-in`,
      connections: CONNECTIONS,
      amount: PER_ROUND,
      method: 'POST',
      headers: { authorization: `Bearer ${scanner.apiKey}` },
      body: () => ({
        tid: tids[next++]!,
        eid,
        scanned_at: new Date().toISOString(),
        scanner_id: scanner.scannerId,
        idempotency_key: randomUUID(),
      }),
    });
  const serving = async (servers: string[]) => {
    for (const server of ['issuer1', 'issuer2', 'issuer3']) {
      await cluster.haproxy.command(`${servers.includes(server) ? 'enable' : 'disable'} server issuers/${server}`);
    }
    await cluster.haproxy.waitUp('issuers', servers);
  };
  const ways = {
    'one instance, direct': async () => checkIns(`http://127.0.0.1:${cluster.issuers[0]!.port}`),
    'one instance, through HAProxy': async () => (await serving(['issuer1']), checkIns(cluster.url)),
    'two instances, through HAProxy': async () => (await serving(['issuer1', 'issuer2']), checkIns(cluster.url)),
  };
  // Commits on the leader per check-in: each waits for the synchronous standby, so fewer, larger
  // group commits are what lets a check-in wait less.
  const commits = async () => {
    await sleep(1500); // backends report their counts about once a second
    const client = new pg.Client(
      `postgres://postgres:${cluster.postgres.superuserPassword}@127.0.0.1:${cluster.haproxy.ports.postgres}/postgres`,
    );
    await client.connect();
    const row = await client.query<{ n: string }>(
      "SELECT xact_commit AS n FROM pg_stat_database WHERE datname = 'issuer'",
    );
    await client.end();
    return Number(row.rows[0]!.n);
  };
  const results = new Map<string, (LoadResult & { commitsPerCheckIn: number })[]>(
    Object.keys(ways).map((way) => [way, []]),
  );
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [way, run] of Object.entries(ways)) {
      const before = await commits();
      const result = await run();
      results.get(way)!.push({ ...result, commitsPerCheckIn: ((await commits()) - before) / PER_ROUND });
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const direct = median(results.get('one instance, direct')!.map((r) => r.rate));
  const lines = [
    '',
    `High availability (bench/ha.ts): ${PER_ROUND} first check-ins per round, ${CONNECTIONS} connections, ${ROUNDS} rounds, medians`,
    '| way | check-ins/s | × direct | p50 ms | p99 ms | commits per check-in | non-2xx | errors |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const [way, runs] of results) {
    const rate = median(runs.map((r) => r.rate));
    const p50 = median(runs.map((r) => r.p50));
    const p99 = median(runs.map((r) => r.p99));
    const failures = runs.reduce((sum, r) => sum + r.non2xx, 0);
    const errors = runs.reduce((sum, r) => sum + r.errors, 0);
    const perCheckIn = median(runs.map((r) => r.commitsPerCheckIn)).toFixed(2);
    lines.push(
      `| ${way} | ${rate.toFixed(0)} | ${(rate / direct).toFixed(2)} | ${p50} | ${p99} | ${perCheckIn} | ${failures} | ${errors} |`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await cluster.destroy();
}
