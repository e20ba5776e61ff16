/**
 * PostgreSQL as deploy/ runs it, on one machine: one etcd member (deploy/etcd/etcd.yml) and three
 * Patroni nodes (deploy/patroni/patroni.yml), each with its own ports and data directory in the run
 * directory; Patroni makes the cluster (the first to take the lock runs initdb, the others copy it)
 * with synchronous replication.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../helpers/server.ts';
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

export class PostgresCluster {
  private constructor(
    private readonly run: RunDirectory,
    readonly nodes: PatroniNode[],
    readonly superuserPassword: string,
  ) {}

  static async start(
    run: RunDirectory,
    passwords: { superuser: string; replication: string; restApi: string },
  ): Promise<PostgresCluster> {
    const postgres = account('postgres');
    const etcdDir = run.dir('etcd');
    const [clientPort, peerPort] = [await freePort(), await freePort()];
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
          ETCD_INITIAL_CLUSTER: `etcd1=http://127.0.0.1:${peerPort}`,
        }),
      ],
      { cwd: etcdDir },
    );
    await until('etcd to answer', async () => (await fetch(`http://127.0.0.1:${clientPort}/health`)).ok, 15_000);

    const nodes: PatroniNode[] = [];
    for (const name of ['pg1', 'pg2', 'pg3']) {
      const node = { name, pgPort: await freePort(), restPort: await freePort(), dir: run.dir(name, postgres) };
      const config = renderFile(
        'patroni/patroni.yml',
        join(node.dir, 'patroni.yml'),
        {
          NODE_NAME: name,
          NODE_ADDRESS: '127.0.0.1',
          REST_PORT: String(node.restPort),
          ETCD_HOSTS: `127.0.0.1:${clientPort}`,
          PG_PORT: String(node.pgPort),
          PG_DATA_DIR: join(node.dir, 'data'),
          PG_BIN_DIR: pgBinDir()!,
          PATRONI_DIR: node.dir,
          SOCKET_DIR: node.dir,
          CLUSTER_NETWORK: '127.0.0.1/32',
        },
        { owner: postgres },
      );
      run.start(name, '/usr/bin/patroni', [config], {
        cwd: node.dir,
        as: 'postgres',
        env: {
          PATRONI_SUPERUSER_PASSWORD: passwords.superuser,
          PATRONI_REPLICATION_PASSWORD: passwords.replication,
          PATRONI_RESTAPI_USERNAME: 'patroni',
          PATRONI_RESTAPI_PASSWORD: passwords.restApi,
        },
      });
      nodes.push(node);
    }
    const cluster = new PostgresCluster(run, nodes, passwords.superuser);
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
