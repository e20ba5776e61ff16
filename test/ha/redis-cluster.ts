/**
 * Redis as deploy/ runs it, on one machine: a master and a replica (deploy/redis/redis.conf) and three
 * Sentinels (deploy/redis/sentinel.conf), each with its own port and directory in the run directory,
 * TLS only, with certificates of the Redis authority given.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../helpers/server.ts';
import type { Authority } from './certificates.ts';
import { type RunDirectory, until } from './processes.ts';
import { renderFile } from './templates.ts';

export const MASTER_NAME = 'issuer-redis';

/** Why this machine cannot run it (a missing program), or null. */
export function redisClusterMissing(): string | null {
  for (const program of ['/usr/bin/redis-server', '/usr/bin/redis-sentinel']) {
    if (!existsSync(program)) return `no ${program}`;
  }
  return null;
}

interface Instance {
  name: string;
  port: number;
  dir: string;
}

/**
 * How a client of the test's own reaches a port: over TLS with a certificate of the Redis authority
 * (as the issuer, the Sentinels and the replicas do), over TLS without one, or in clear.
 */
export type Transport = 'tls' | 'tls-without-certificate' | 'plain';

export class RedisCluster {
  private constructor(
    private readonly run: RunDirectory,
    readonly servers: Instance[],
    readonly sentinels: Instance[],
    /** What Redis asks of a client (REDIS_PASSWORD), and what the Sentinels ask (REDIS_SENTINEL_PASSWORD). */
    readonly passwords: { redis: string; sentinel: string },
    /** The Redis authority's certificate (the issuer's REDIS_TLS_CA). */
    readonly ca: string,
    private readonly client: { cert: string; key: string },
  ) {}

  /** Starts it with certificates `authority` signs: one for this machine's Redis and Sentinels, one for the test. */
  static async start(
    run: RunDirectory,
    passwords: { redis: string; sentinel: string },
    authority: Authority,
  ): Promise<RedisCluster> {
    const machine = authority.issue('redis-m1', ['127.0.0.1']);
    const tls = { REDIS_TLS_CA_FILE: authority.ca, REDIS_TLS_CERT_FILE: machine.cert, REDIS_TLS_KEY_FILE: machine.key };
    const servers: Instance[] = [];
    for (const name of ['redis1', 'redis2']) {
      const server = { name, port: await freePort(), dir: run.dir(name) };
      const config = renderFile('redis/redis.conf', join(server.dir, 'redis.conf'), {
        REDIS_ADDRESS: '127.0.0.1',
        REDIS_PORT: String(server.port),
        REDIS_DIR: server.dir,
        REDIS_PASSWORD: passwords.redis,
        ...tls,
      });
      const replicaOf = servers[0] ? ['--replicaof', '127.0.0.1', String(servers[0].port)] : [];
      run.start(name, '/usr/bin/redis-server', [config, ...replicaOf], { cwd: server.dir });
      servers.push(server);
    }
    const sentinels: Instance[] = [];
    for (const name of ['sentinel1', 'sentinel2', 'sentinel3']) {
      const sentinel = { name, port: await freePort(), dir: run.dir(name) };
      const config = renderFile('redis/sentinel.conf', join(sentinel.dir, 'sentinel.conf'), {
        SENTINEL_ADDRESS: '127.0.0.1',
        SENTINEL_PORT: String(sentinel.port),
        SENTINEL_DIR: sentinel.dir,
        REDIS_MASTER_NAME: MASTER_NAME,
        REDIS_MASTER_ADDRESS: '127.0.0.1',
        REDIS_MASTER_PORT: String(servers[0]!.port),
        REDIS_PASSWORD: passwords.redis,
        REDIS_SENTINEL_PASSWORD: passwords.sentinel,
        ...tls,
      });
      run.start(name, '/usr/bin/redis-sentinel', [config], { cwd: sentinel.dir });
      sentinels.push(sentinel);
    }
    const client = authority.issue('test-client', ['127.0.0.1']);
    const cluster = new RedisCluster(run, servers, sentinels, passwords, authority.ca, client);
    await until(
      'the replica in sync and three Sentinels that know each other and it',
      async () => {
        const replication = await cluster.ask(servers[1]!.port, 'INFO', 'replication');
        if (!/master_link_status:up/.test(String(replication))) return false;
        for (const sentinel of sentinels) {
          const info = String(await cluster.ask(sentinel.port, 'INFO', 'sentinel'));
          if (!new RegExp(`name=${MASTER_NAME},status=ok,.*slaves=1,sentinels=3`).test(info)) return false;
        }
        return true;
      },
      30_000,
    );
    return cluster;
  }

  /** The sentinels as REDIS_SENTINELS names them. */
  get sentinelList(): string {
    return this.sentinels.map((s) => `127.0.0.1:${s.port}`).join(',');
  }

  /** The master's port as the Sentinels report it. */
  async masterPort(): Promise<number> {
    for (const sentinel of this.sentinels) {
      try {
        const address = (await this.ask(sentinel.port, 'SENTINEL', 'get-master-addr-by-name', MASTER_NAME)) as string[];
        return Number(address[1]);
      } catch {
        // that Sentinel is down: ask the next
      }
    }
    throw new Error('no Sentinel answers');
  }

  /** Kills the master (SIGKILL). */
  async killMaster(): Promise<Instance> {
    const port = await this.masterPort();
    const master = this.servers.find((s) => s.port === port)!;
    await this.run.killAllIn(master.dir);
    return master;
  }

  /** One command to the Redis or Sentinel on `port`, with the password it asks for (`password`: another, or none). */
  async ask(port: number, command: string, ...args: string[]): Promise<unknown> {
    const sentinel = this.sentinels.some((s) => s.port === port);
    return this.askAs(port, sentinel ? this.passwords.sentinel : this.passwords.redis, command, ...args);
  }

  /** One command to the Redis or Sentinel on `port` over TLS with a certificate, giving `password` first (undefined: none). */
  askAs(port: number, password: string | undefined, command: string, ...args: string[]): Promise<unknown> {
    return this.askOver('tls', port, password, command, ...args);
  }

  /** One command to the Redis or Sentinel on `port` the way `transport` says, giving `password` first. */
  async askOver(
    transport: Transport,
    port: number,
    password: string | undefined,
    command: string,
    ...args: string[]
  ): Promise<unknown> {
    const certificate = { cert: readFileSync(this.client.cert), key: readFileSync(this.client.key) };
    const tls = { ca: readFileSync(this.ca), ...(transport === 'tls' ? certificate : {}) };
    const client = new Redis({
      port,
      host: '127.0.0.1',
      password,
      ...(transport === 'plain' ? {} : { tls }),
      connectTimeout: 5_000,
      enableReadyCheck: false,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return await client.call(command, ...args);
    } finally {
      client.disconnect();
    }
  }
}
