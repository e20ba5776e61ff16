/**
 * PostgreSQL as deploy/ runs it, on one machine: one etcd member (deploy/etcd/etcd.yml) and three
 * Patroni nodes (deploy/patroni/patroni.yml), each with its own ports and data directory in the run
 * directory; Patroni makes the cluster (the first to take the lock runs initdb, the others copy it)
 * with synchronous replication.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { freePort } from '../helpers/server.ts';
import type { Authority } from './certificates.ts';
import { account, type RunDirectory, until } from './processes.ts';
import { renderFile } from './templates.ts';

export interface PatroniNode {
  name: string;
  pgPort: number;
  restPort: number;
  dir: string;
}

/** Why this machine cannot run the cluster (a missing program), or null. */
export function postgresClusterMissing(): string | null {
  if (pgBinDir() === null) return 'no PostgreSQL server binaries under /usr/lib/postgresql';
  for (const program of ['/usr/bin/patroni', '/usr/bin/etcd']) if (!existsSync(program)) return `no ${program}`;
  return null;
}

/** How to reach etcd: its client port, the authority its members and clients share, and a client's certificate. */
export interface EtcdAccess {
  port: number;
  ca: string;
  client: { cert: string; key: string } | null;
}

/** etcd's GET /health over TLS with `access`'s client certificate (none: without one); the status, or the error. */
export function etcdHealth(access: EtcdAccess): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: access.port,
        path: '/health',
        ca: readFileSync(access.ca),
        ...(access.client ? { cert: readFileSync(access.client.cert), key: readFileSync(access.client.key) } : {}),
        timeout: 2000,
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('timeout', () => req.destroy(new Error('etcd did not answer')));
    req.on('error', reject);
    req.end();
  });
}

export class PostgresCluster {
  private constructor(
    private readonly run: RunDirectory,
    readonly nodes: PatroniNode[],
    readonly superuserPassword: string,
    /** etcd as Patroni reaches it (Patroni's client certificate). */
    readonly etcd: EtcdAccess,
    /** The authority that signed every node's certificate (the issuers' sslrootcert). */
    readonly ca: string,
  ) {}

  /**
   * `tls`: the authority of etcd (its member and Patroni's client certificates) and the one of
   * PostgreSQL (each node's certificate), as docs/deploy.md makes them.
   */
  static async start(
    run: RunDirectory,
    passwords: { superuser: string; replication: string; rewind: string; restApi: string },
    tls: { etcd: Authority; postgres: Authority },
  ): Promise<PostgresCluster> {
    const postgres = account('postgres');
    const etcdDir = run.dir('etcd');
    const [clientPort, peerPort] = [await freePort(), await freePort()];
    const member = tls.etcd.issue('etcd1', ['127.0.0.1']);
    run.start(
      'etcd',
      'etcd',
      [
        '--config-file',
        renderFile('etcd/etcd.yml', join(etcdDir, 'etcd.yml'), {
          ETCD_NAME: 'etcd1',
          ETCD_DATA_DIR: join(etcdDir, 'data'),
          ETCD_ADDRESS: '127.0.0.1',
          ETCD_CLIENT_PORT: String(clientPort),
          ETCD_PEER_PORT: String(peerPort),
          ETCD_INITIAL_CLUSTER: `etcd1=https://127.0.0.1:${peerPort}`,
          ETCD_CERT_FILE: member.cert,
          ETCD_KEY_FILE: member.key,
          ETCD_CA_FILE: tls.etcd.ca,
        }),
      ],
      { cwd: etcdDir },
    );
    // Patroni's certificate for etcd (one for every node here: they share a machine).
    const patroniClient = tls.etcd.issue('patroni', ['127.0.0.1'], postgres);
    const etcd: EtcdAccess = { port: clientPort, ca: tls.etcd.ca, client: patroniClient };
    await until('etcd to answer', async () => (await etcdHealth(etcd)) === 200, 15_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${run.logTail('etcd')}`);
    });

    const nodes: PatroniNode[] = [];
    for (const name of ['pg1', 'pg2', 'pg3']) {
      const node = { name, pgPort: await freePort(), restPort: await freePort(), dir: run.dir(name, postgres) };
      const server = tls.postgres.issue(name, ['127.0.0.1'], postgres);
      const config = renderFile(
        'patroni/patroni.yml',
        join(node.dir, 'patroni.yml'),
        {
          NODE_NAME: name,
          NODE_ADDRESS: '127.0.0.1',
          REST_PORT: String(node.restPort),
          ETCD_HOSTS: `127.0.0.1:${clientPort}`,
          ETCD_CA_FILE: tls.etcd.ca,
          PATRONI_ETCD_CERT_FILE: patroniClient.cert,
          PATRONI_ETCD_KEY_FILE: patroniClient.key,
          PG_PORT: String(node.pgPort),
          PG_DATA_DIR: join(node.dir, 'data'),
          PG_BIN_DIR: pgBinDir()!,
          PATRONI_DIR: node.dir,
          SOCKET_DIR: node.dir,
          CLUSTER_NETWORK: '127.0.0.1/32',
          PG_CERT_FILE: server.cert,
          PG_KEY_FILE: server.key,
          PG_CA_FILE: tls.postgres.ca,
        },
        { owner: postgres },
      );
      run.start(name, '/usr/bin/patroni', [config], {
        cwd: node.dir,
        as: 'postgres',
        env: {
          PATRONI_SUPERUSER_PASSWORD: passwords.superuser,
          PATRONI_REPLICATION_PASSWORD: passwords.replication,
          PATRONI_REWIND_PASSWORD: passwords.rewind,
          PATRONI_RESTAPI_USERNAME: 'patroni',
          PATRONI_RESTAPI_PASSWORD: passwords.restApi,
        },
      });
      nodes.push(node);
    }
    const cluster = new PostgresCluster(run, nodes, passwords.superuser, etcd, tls.postgres.ca);
    await until(
      'a PostgreSQL leader and a synchronous standby',
      async () => {
        const members = await cluster.members();
        return (
          members.some((m) => m.role === 'leader') &&
          members.some((m) => m.role === 'sync_standby') &&
          members.filter((m) => m.state === 'running' || m.state === 'streaming').length === 3
        );
      },
      90_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${nodes.map((n) => `${n.name}:\n${run.logTail(n.name, 15)}`).join('\n')}`);
    });
    return cluster;
  }

  /** The members as Patroni's REST API lists them (asked of any node that answers). */
  async members(): Promise<{ name: string; role: string; state: string }[]> {
    for (const node of this.nodes) {
      try {
        const res = await fetch(`http://127.0.0.1:${node.restPort}/cluster`, { signal: AbortSignal.timeout(1000) });
        return ((await res.json()) as { members: { name: string; role: string; state: string }[] }).members;
      } catch {
        // that node is down: ask the next
      }
    }
    return [];
  }

  /** The node Patroni calls the leader now. */
  async leader(): Promise<PatroniNode> {
    const name = (await this.members()).find((m) => m.role === 'leader')?.name;
    const node = this.nodes.find((n) => n.name === name);
    if (!node) throw new Error('no PostgreSQL leader');
    return node;
  }

  /**
   * Runs `sql` on the leader as the guide does it: psql as the postgres account, through the leader's
   * socket (the superuser cannot come from the network). The SQL goes on standard input, never in a
   * command line.
   */
  async asSuperuser(sql: string): Promise<string> {
    const leader = await this.leader();
    const { uid, gid } = account('postgres');
    const psql = spawnSync(
      join(pgBinDir()!, 'psql'),
      [
        '-X',
        '-q',
        '-v',
        'ON_ERROR_STOP=1',
        '-h',
        leader.dir,
        '-p',
        String(leader.pgPort),
        '-U',
        'postgres',
        '-d',
        'postgres',
      ],
      { input: sql, encoding: 'utf8', uid, gid, cwd: leader.dir, timeout: 30_000 },
    );
    if (psql.status !== 0) throw new Error(`psql failed: ${psql.stderr}`);
    return psql.stdout;
  }

  /** The lines of every node's log (Patroni's, and PostgreSQL's own) that match `pattern`. */
  logLines(pattern: RegExp): string[] {
    return this.nodes.flatMap((node) =>
      this.run
        .logTail(node.name, Infinity)
        .split('\n')
        .filter((line) => pattern.test(line)),
    );
  }

  /** Stops nodes' Patroni and PostgreSQL where they stand (SIGSTOP), as a machine that stalls. */
  async pause(nodes: PatroniNode[]): Promise<void> {
    for (const pid of nodes.flatMap((node) => this.run.processesIn(node.dir))) process.kill(pid, 'SIGSTOP');
  }

  /** Lets paused nodes run on (SIGCONT). */
  async resume(nodes: PatroniNode[]): Promise<void> {
    for (const pid of nodes.flatMap((node) => this.run.processesIn(node.dir))) process.kill(pid, 'SIGCONT');
  }

  /** Kills a node's Patroni and PostgreSQL together (SIGKILL), as its machine dying would. */
  async kill(node: PatroniNode): Promise<void> {
    await this.run.killAllIn(node.dir);
  }
}

/** The newest installed PostgreSQL server's bin directory, or null. */
function pgBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const version = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a))[0];
  return version ? join(root, version, 'bin') : null;
}
