import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort } from './server.ts';

export interface RedisAddress {
  host: string;
  port: number;
}

export interface Node {
  name: string;
  port: number;
  process: ChildProcess;
}

const HOST = '127.0.0.1';
/** Every process a cluster started, stopped however the test run ends. */
const running = new Set<ChildProcess>();
process.once('exit', () => running.forEach((child) => child.kill('SIGKILL')));

/**
 * Redis with Sentinel, all of the test's own: a master, its replicas and Sentinels on free loopback
 * ports, with their files in a temporary folder (the Redis other tests share is never touched). A
 * test kills the master and waits for the Sentinels to promote a replica, as in a real failover.
 */
export class RedisSentinelCluster {
  private readonly nodes = new Map<number, Node>();
  private readonly sentinelNodes: Node[] = [];

  private constructor(
    private readonly dir: string,
    readonly masterName: string,
  ) {}

  /** Why a cluster cannot be made here (no redis-server or redis-sentinel), or null. */
  static unavailableBecause(): string | null {
    const missing = ['redis-server', 'redis-sentinel'].filter((tool) => {
      try {
        execFileSync('which', [tool], { stdio: 'ignore' });
        return false;
      } catch {
        return true;
      }
    });
    return missing.length ? `${missing.join(' and ')} not installed (apt-get install redis-sentinel)` : null;
  }

  /**
   * Starts the master, `replicas` replicas and `sentinels` Sentinels (quorum: a majority), and
   * resolves once every Sentinel knows the master, its replicas and the other Sentinels, so that a
   * failover can be agreed on. `downAfterMs`: how long the master may be silent before it is down.
   */
  static async start(
    options: { masterName?: string; replicas?: number; sentinels?: number; downAfterMs?: number } = {},
  ): Promise<RedisSentinelCluster> {
    const { masterName = 'issuer-redis', replicas = 1, sentinels = 3, downAfterMs = 2000 } = options;
    const cluster = new RedisSentinelCluster(mkdtempSync(join(tmpdir(), 'issuer-sentinel-')), masterName);
    try {
      const master = await cluster.startServer('master');
      for (let i = 1; i <= replicas; i++) await cluster.startServer(`replica-${i}`, master);
      for (let i = 1; i <= sentinels; i++) {
        const port = await freePort();
        const dir = join(cluster.dir, `sentinel-${i}`);
        mkdirSync(dir);
        const conf = join(dir, 'sentinel.conf');
        writeFileSync(
          conf,
          [
            `port ${port}`,
            `bind ${HOST}`,
            `dir ${dir}`,
            `sentinel monitor ${masterName} ${HOST} ${master} ${Math.floor(sentinels / 2) + 1}`,
            `sentinel down-after-milliseconds ${masterName} ${downAfterMs}`,
            `sentinel failover-timeout ${masterName} 10000`,
            `sentinel parallel-syncs ${masterName} 1`,
            '',
          ].join('\n'),
        );
        cluster.sentinelNodes.push(cluster.spawn(`sentinel-${i}`, port, 'redis-sentinel', [conf]));
      }
      await cluster.untilAgreed(replicas, sentinels, 30_000);
      return cluster;
    } catch (error) {
      await cluster.destroy();
      throw error;
    }
  }

  /** The Sentinels' addresses as REDIS_SENTINELS takes them: `127.0.0.1:p1,127.0.0.1:p2,…`. */
  get sentinelsEnv(): string {
    return this.sentinelNodes.map((node) => `${HOST}:${node.port}`).join(',');
  }

  /** The master's address as the Sentinels tell it (the first that names one). */
  async master(): Promise<RedisAddress> {
    for (const sentinel of this.sentinelNodes) {
      const named = await this.namedBy(sentinel.port);
      if (named) return named;
    }
    throw new Error('no Sentinel names a master');
  }

  /** The master's port as each Sentinel tells it (`null` for a Sentinel that names none). */
  async masters(): Promise<(number | null)[]> {
    return Promise.all(this.sentinelNodes.map(async (sentinel) => (await this.namedBy(sentinel.port))?.port ?? null));
  }

  private async namedBy(sentinelPort: number): Promise<RedisAddress | null> {
    const reply = await this.ask(sentinelPort, (c) =>
      c.call('SENTINEL', 'get-master-addr-by-name', this.masterName),
    ).catch(() => null);
    return Array.isArray(reply) ? { host: String(reply[0]), port: Number(reply[1]) } : null;
  }

  /** Kills the master with SIGKILL (a machine that died); its port and the moment it went. */
  async killMaster(): Promise<{ port: number; killedAt: number }> {
    const { port } = await this.master();
    const node = this.nodes.get(port)!;
    const exited = once(node.process, 'exit');
    node.process.kill('SIGKILL');
    await exited;
    this.nodes.delete(port);
    return { port, killedAt: Date.now() };
  }

  /**
   * Waits until a replica other than `oldPort` reports itself master (polled every 50 ms): its
   * address and the moment it was seen promoted. Throws after `withinMs`.
   */
  async waitForPromotion(oldPort: number, withinMs = 30_000): Promise<RedisAddress & { promotedAt: number }> {
    const started = Date.now();
    while (Date.now() - started < withinMs) {
      for (const port of this.nodes.keys()) {
        if (port === oldPort) continue;
        const role = await this.ask(port, (c) => c.role()).catch(() => null);
        if (Array.isArray(role) && role[0] === 'master') return { host: HOST, port, promotedAt: Date.now() };
      }
      await sleep(50);
    }
    throw new Error(`no replica was promoted within ${withinMs} ms`);
  }

  /** Runs `work` with a short-lived client of the Redis (or Sentinel) on `port`. */
  async ask<T>(port: number, work: (client: Redis) => Promise<T>): Promise<T> {
    const client = new Redis({
      host: HOST,
      port,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      connectTimeout: 1000,
      commandTimeout: 1000,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return await work(client);
    } finally {
      client.disconnect();
    }
  }

  /** The last lines of every process's log, to explain a failure. */
  logs(lines = 15): string {
    return readdirSync(this.dir)
      .filter((file) => file.endsWith('.log'))
      .map((file) => {
        const tail = readFileSync(join(this.dir, file), 'utf8').trimEnd().split('\n').slice(-lines);
        return `--- ${file}\n${tail.join('\n')}`;
      })
      .join('\n');
  }

  /** Stops every process and removes the files. */
  async destroy(): Promise<void> {
    const all = [...this.nodes.values(), ...this.sentinelNodes];
    await Promise.all(
      all.map(async ({ process: child }) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, 'exit');
        child.kill('SIGKILL');
        await exited;
      }),
    );
    this.nodes.clear();
    this.sentinelNodes.length = 0;
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** A redis-server without persistence; a replica of `masterPort` when given. Resolves with its port. */
  private async startServer(name: string, masterPort?: number): Promise<number> {
    const node = await startRedisServer(this.dir, name, masterPort);
    this.nodes.set(node.port, node);
    return node.port;
  }

  private spawn(name: string, port: number, command: string, args: string[]): Node {
    return spawnNode(this.dir, name, port, command, args);
  }

  /** Until each Sentinel sees the master up with its replicas and the other Sentinels. */
  private async untilAgreed(replicas: number, sentinels: number, withinMs: number): Promise<void> {
    const started = Date.now();
    let last = 'nothing asked yet';
    while (Date.now() - started < withinMs) {
      const views = await Promise.all(
        this.sentinelNodes.map((node) =>
          this.ask(node.port, async (c) => {
            const master = packed((await c.call('SENTINEL', 'master', this.masterName)) as string[]);
            const known = (await c.call('SENTINEL', 'replicas', this.masterName)) as string[][];
            const up = known.map(packed).filter((r) => !/s_down|disconnected/.test(r.flags ?? ''));
            return { flags: master.flags, replicas: up.length, sentinels: Number(master['num-other-sentinels']) };
          }).catch((error: Error) => ({ flags: error.message, replicas: 0, sentinels: 0 })),
        ),
      );
      last = JSON.stringify(views);
      if (views.every((v) => v.flags === 'master' && v.replicas === replicas && v.sentinels === sentinels - 1)) {
        return;
      }
      await sleep(200);
    }
    throw new Error(`the Sentinels did not agree within ${withinMs} ms: ${last}\n${this.logs()}`);
  }
}

/**
 * A redis-server of the caller's own in `parent`/`name` (its log beside it), without persistence, on a
 * free loopback port; a replica of `masterPort` when given. Killed however the test run ends.
 */
export async function startRedisServer(parent: string, name: string, masterPort?: number): Promise<Node> {
  const port = await freePort();
  const dir = join(parent, name);
  mkdirSync(dir);
  const args = ['--port', String(port), '--bind', HOST, '--dir', dir, '--save', '', '--appendonly', 'no'];
  if (masterPort !== undefined) args.push('--replicaof', HOST, String(masterPort));
  return spawnNode(parent, name, port, 'redis-server', args);
}

function spawnNode(parent: string, name: string, port: number, command: string, args: string[]): Node {
  const log = openSync(join(parent, `${name}.log`), 'a');
  const child = spawn(command, args, { stdio: ['ignore', log, log] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return { name, port, process: child };
}

/** A Sentinel's flat `[name, value, name, value, …]` reply as an object. */
function packed(reply: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < reply.length; i += 2) out[reply[i]!] = reply[i + 1]!;
  return out;
}
