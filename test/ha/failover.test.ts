import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { brokenPromises, eventWithTickets } from '../helpers/scan-load.ts';
import { call, enrollScanner } from '../helpers/server.ts';
import { itUnless } from '../helpers/services.ts';
import { clusterMissing, HaCluster, ISSUER_USER } from './cluster.ts';
import pg from 'pg';
import { account } from './processes.ts';
import { etcdHealth } from './postgres-cluster.ts';
import { runGates } from './gate-load.ts';
import { answered, backAfter, moment, retried, seconds, sharedGauge } from './waits.ts';

// An optional part: without the packages (.ci/run installs them when it can), skipped with a loud
// line, even under REQUIRE_SERVICES.
const missing = clusterMissing();
if (missing !== null) process.stderr.write(`\n!!! ${missing}: high-availability cluster tests SKIPPED\n\n`);
const it = itUnless(missing ?? undefined);

describe('deploy/ on one machine: PostgreSQL under Patroni, Redis with Sentinel, HAProxy, three issuers', () => {
  let cluster: HaCluster;

  before(async () => {
    if (missing) return;
    // Every scanner here enrols from one address (HAProxy's, on this machine): the default of 30 a
    // minute per address would refuse the second test's scanners.
    cluster = await HaCluster.start({ issuerEnv: { RATE_LIMIT_ENROLL_PER_IP: '200' } });
  });
  after(async () => {
    await cluster?.destroy();
  });

  it('each issuer runs as the systemd unit says: its ExecStart, in its WorkingDirectory, as a user that is not root and cannot gain privileges', () => {
    for (const issuer of cluster.issuers) {
      const [pid, ...others] = cluster.run.processesIn(issuer.dir);
      assert.ok(pid !== undefined && others.length === 0, `${issuer.name} is one process`);
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const uid = account(ISSUER_USER).uid;
      assert.notEqual(uid, 0);
      assert.match(
        status,
        new RegExp(`^Uid:\\t${uid}\\t${uid}\\t${uid}\\t${uid}$`, 'm'),
        `runs as ${ISSUER_USER}, as User= says`,
      );
      assert.match(status, /^NoNewPrivs:\t1$/m);
      assert.match(status, /^CapEff:\t0+$/m, 'no capabilities');
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      assert.deepEqual(cmdline, [
        process.execPath,
        '--max-semi-space-size=8',
        join(import.meta.dirname, '..', '..', 'scripts', 'start.js'),
      ]);
    }
  });

  it('Patroni’s REST API answers HAProxy’s checks to anyone, and refuses a change without its credentials', async () => {
    for (const node of cluster.postgres.nodes) {
      const check = await fetch(`http://127.0.0.1:${node.restPort}/primary`);
      assert.ok(check.status === 200 || check.status === 503);
      const change = await fetch(`http://127.0.0.1:${node.restPort}/restart`, { method: 'POST', body: '{}' });
      assert.equal(change.status, 401);
    }
  });

  it('the cluster’s own doors are shut: etcd only to a client certificate its authority signed, PostgreSQL only over TLS with a password and never to the superuser from the network, Redis and Sentinel only over TLS with a certificate of their authority and their passwords', async () => {
    const etcd = cluster.postgres.etcd;
    assert.equal(await etcdHealth(etcd), 200, 'Patroni’s certificate is let in');
    await assert.rejects(etcdHealth({ ...etcd, client: null }), 'no client certificate: refused');
    await assert.rejects(fetch(`http://127.0.0.1:${etcd.port}/v2/keys/service/`), 'no plain HTTP');

    const database = (user: string, password: string, db: string, ssl: string) =>
      new pg.Client({
        connectionString: `postgres://${user}:${password}@127.0.0.1:${cluster.haproxy.ports.postgres}/${db}?${ssl}`,
        connectionTimeoutMillis: 5000,
      });
    const verified = `uselibpqcompat=true&sslmode=verify-ca&sslrootcert=${cluster.postgres.ca}`;
    const refusal = async (client: pg.Client) => {
      client.on('error', () => undefined);
      try {
        await client.connect();
        return 'connected';
      } catch (error) {
        return (error as Error).message;
      } finally {
        await client.end().catch(() => undefined);
      }
    };
    const superuser = await refusal(database('postgres', cluster.postgres.superuserPassword, 'postgres', verified));
    assert.match(superuser, /no pg_hba\.conf entry for host "127\.0\.0\.1", user "postgres"/);
    const plain = await refusal(database('issuer', 'any', 'issuer', 'sslmode=disable'));
    assert.match(plain, /no pg_hba\.conf entry .* no encryption/);
    assert.match(
      await refusal(database('issuer', 'a-wrong-password', 'issuer', verified)),
      /password authentication failed/,
    );

    const [server] = cluster.redis.servers;
    const [sentinel] = cluster.redis.sentinels;
    for (const [port, password] of [
      [server!.port, cluster.redis.passwords.redis],
      [sentinel!.port, cluster.redis.passwords.sentinel],
    ] as const) {
      await assert.rejects(cluster.redis.askOver('plain', port, password, 'PING'), /Connection is closed/, 'in clear');
      await assert.rejects(cluster.redis.askOver('tls-without-certificate', port, password, 'PING'), /closed/);
    }
    await assert.rejects(cluster.redis.askAs(server!.port, undefined, 'GET', 'x'), /NOAUTH/);
    await assert.rejects(cluster.redis.askAs(sentinel!.port, undefined, 'SENTINEL', 'masters'), /NOAUTH/);
    await assert.rejects(
      cluster.redis.askAs(sentinel!.port, undefined, 'AUTH', cluster.redis.passwords.redis),
      /WRONGPASS/,
      'Redis’s password is not the Sentinels’',
    );
    assert.match(String(await cluster.redis.ask(server!.port, 'CONFIG', 'GET', 'protected-mode')), /yes/);
  });

  it('a rolling restart as the guide does it (drain in HAProxy, stop, start, ready, one instance after the other) is not felt at the gates', async (t) => {
    const admin = cluster.adminToken;
    const { eid, tickets } = await eventWithTickets(cluster.url, admin, 'Rolling restart', 2000);
    let stop = false;
    const { report, done } = await runGates({
      base: cluster.url,
      admin,
      eid,
      tids: tickets.map((ticket) => ticket.tid),
      scanners: 20,
      pauseMs: 100,
      requestTimeoutMs: 20_000,
      until: () => stop,
    });
    try {
      await answered(report, 100);
      for (const issuer of cluster.issuers) {
        await cluster.haproxy.command(`set server issuers/${issuer.name} state drain`);
        await moment(
          `${issuer.name} drained`,
          15_000,
          async () => (await cluster.haproxy.sessions('issuers', issuer.name)) === 0,
        );
        await cluster.stopIssuer(issuer);
        await cluster.startIssuer(issuer);
        await cluster.haproxy.command(`set server issuers/${issuer.name} state ready`);
        await cluster.haproxy.waitUp('issuers', [issuer.name]);
        await answered(report, report.answers.size + 50);
      }
    } finally {
      stop = true;
      await done;
    }
    t.diagnostic(`rolling restart: ${report.answers.size} scans answered, ${report.retried} retries`);
    assert.deepEqual(report.violations, []);
    assert.equal(report.retried, 0, 'no scanner saw a 503 or a network error');
    assert.deepEqual(await brokenPromises(cluster.url, admin, eid, report), []);
  });

  it('a check-in no standby has confirmed is not answered 200: with both standbys stalled it answers 503, and once they are back the same scan is answered valid', async () => {
    const admin = cluster.adminToken;
    const { eid, tickets } = await eventWithTickets(cluster.url, admin, 'Stalled standbys', 1);
    const device = await enrollScanner(cluster.url, admin, eid);
    const scan = {
      tid: tickets[0]!.tid,
      eid,
      scanner_id: device.scannerId,
      idempotency_key: randomUUID(),
      scanned_at: new Date().toISOString(),
    };
    const checkIn = () => call(`${cluster.url}/api/v1/tickets/check-in`, { bearer: device.apiKey, body: scan });
    const leader = await cluster.postgres.leader();
    const standbys = cluster.postgres.nodes.filter((node) => node !== leader);
    await cluster.postgres.pause(standbys);
    let stalled;
    try {
      stalled = await checkIn();
    } finally {
      await cluster.postgres.resume(standbys);
    }
    assert.equal(stalled.status, 503, `answered ${stalled.status} ${stalled.text} while no standby could confirm it`);
    assert.ok(Number(stalled.headers.get('retry-after')) > 0);
    const again = await retried(checkIn);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.status, 'valid');
    const state = await call(`${cluster.url}/admin/v1/events/${eid}`, { bearer: admin });
    assert.equal((state.body.counters as { checked_in: number }).checked_in, 1);
  });

  it('20 scanners through HAProxy while the PostgreSQL leader, then the Redis master, then an issuer die: nothing answered lost, no second valid, only 503s with Retry-After, serving again within 30 s', async (t) => {
    const admin = cluster.adminToken;
    const { eid, tickets } = await eventWithTickets(cluster.url, admin, 'Stadium', 3000);
    let stop = false;
    const { report, done } = await runGates({
      base: cluster.url,
      admin,
      eid,
      tids: tickets.map((ticket) => ticket.tid),
      scanners: 20,
      pauseMs: 100,
      requestTimeoutMs: 20_000,
      until: () => stop,
    });
    const measures: string[] = [];
    let pgKilled = 0;
    try {
      await answered(report, 200);

      const leader = await cluster.postgres.leader();
      pgKilled = Date.now();
      await cluster.postgres.kill(leader);
      const pgBack = await backAfter(report, pgKilled, `the PostgreSQL leader ${leader.name}`);
      const newLeader = await cluster.postgres.leader();
      assert.notEqual(newLeader.name, leader.name);
      measures.push(`PostgreSQL leader killed: check-ins again after ${seconds(pgBack)} s`);
      await answered(report, report.answers.size + 200);

      const redisKilled = Date.now();
      const master = await cluster.redis.killMaster();
      const redisBack = await backAfter(report, redisKilled, 'the Redis master');
      measures.push(`Redis master killed: check-ins again after ${seconds(redisBack)} s`);
      const promotedAt = await moment('a replica promoted by the Sentinels', 20_000, async () => {
        return (await cluster.redis.masterPort()) !== master.port;
      });
      const sharedAt = await moment('every instance counting in Redis again', 10_000, async () => {
        const gauges = await Promise.all(cluster.issuers.map((issuer) => sharedGauge(issuer.port, admin)));
        return gauges.every((gauge) => gauge === '1');
      });
      measures.push(
        `Redis promoted ${seconds(promotedAt - redisKilled)} s after the kill, limits shared again ${seconds(sharedAt - promotedAt)} s later`,
      );
      await answered(report, report.answers.size + 200);

      const victim = cluster.issuers[1]!;
      const issuerKilled = Date.now();
      await cluster.killIssuer(victim);
      const issuerBack = await backAfter(report, issuerKilled, `issuer instance ${victim.name}`);
      measures.push(`issuer instance killed: check-ins again after ${seconds(issuerBack)} s`);
      await answered(report, report.answers.size + 200);
      // Two failed checks, 0.5 s apart once the first failed.
      await moment('HAProxy taking the dead instance out', 5000, async () => {
        return (await cluster.haproxy.states('issuers')).get(victim.name) === 'DOWN';
      });
    } finally {
      stop = true;
      await done;
    }

    const haproxyRetries = await cluster.haproxy.retries('issuers');
    measures.push(
      `${report.answers.size} scans answered, ${report.scansRetried} of them sent more than once by their scanner ` +
        `(${report.unavailableTimes.length} answers 503, ${report.networkErrors} network errors); HAProxy's retries ` +
        `${haproxyRetries.retries}, redispatches ${haproxyRetries.redispatches}`,
    );
    for (const { at, error } of report.networkErrorLog) {
      measures.push(`network error ${seconds(at - pgKilled)} s after the PostgreSQL kill: ${error}`);
    }
    for (const line of measures) t.diagnostic(line);
    process.stderr.write(`\nHA failover: ${measures.join('; ')}\n\n`);

    assert.deepEqual(report.violations, [], 'every 5xx a scanner saw was a 503 with Retry-After and the envelope');
    assert.deepEqual(
      await brokenPromises(cluster.url, admin, eid, report),
      [],
      'nothing answered lost, no second valid',
    );
    assert.ok(report.retried > 0, 'the kills were felt: scanners had to retry');
    assert.deepEqual(
      cluster.postgres.logLines(/canceling wait for synchronous replication/),
      [],
      'no commit went through without its synchronous standby',
    );
  });
});
