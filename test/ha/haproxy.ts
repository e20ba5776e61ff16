/**
 * HAProxy as deploy/haproxy/haproxy.cfg runs it: the file and its error pages filled in and started
 * in the foreground, and its runtime API (the admin socket the file opens).
 */
import { existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { account, type RunDirectory, until } from './processes.ts';
import { DEPLOY, renderFile } from './templates.ts';

const HAPROXY = '/usr/sbin/haproxy';

/** Why HAProxy cannot run here as deploy/ configures it (started as root, then its own user), or null. */
export function haproxyMissing(): string | null {
  if (!existsSync(HAPROXY)) return `no ${HAPROXY} (apt-get install haproxy)`;
  // Its certificate is made for each run (certificates.ts).
  if (!existsSync('/usr/bin/openssl')) return 'no /usr/bin/openssl (apt-get install openssl)';
  if (process.getuid?.() !== 0) return 'not root (HAProxy starts as root and becomes the haproxy user)';
  try {
    account('haproxy');
    return null;
  } catch {
    return 'no haproxy user (made by the haproxy package)';
  }
}

export interface HaproxyAddresses {
  http: number;
  postgres: number;
  /** host:port of each issuer instance (three, as the file names). */
  issuers: [string, string, string];
  /** Each PostgreSQL node: host:port and the port of its Patroni REST API. */
  postgresNodes: [PgNode, PgNode, PgNode];
  /** The certificate and key HAProxy serves the issuers with, in one PEM file (for 127.0.0.1). */
  certificate: string;
}

interface PgNode {
  address: string;
  restPort: number;
}

export class Haproxy {
  private constructor(
    private readonly socket: string,
    readonly ports: { http: number; postgres: number },
  ) {}

  static async start(run: RunDirectory, addresses: HaproxyAddresses, name = 'haproxy'): Promise<Haproxy> {
    const dir = run.dir(name);
    const errors = run.dir(`${name}/errors`);
    for (const page of readdirSync(join(DEPLOY, 'haproxy', 'errors'))) {
      renderFile(`haproxy/errors/${page}`, join(errors, page), {}, { mode: 0o644 });
    }
    const [pg1, pg2, pg3] = addresses.postgresNodes;
    const config = renderFile('haproxy/haproxy.cfg', join(dir, 'haproxy.cfg'), {
      HAPROXY_RUN_DIR: dir,
      HAPROXY_CHROOT: run.dir(`${name}/empty`),
      HAPROXY_HTTPS_ADDRESS: `127.0.0.1:${addresses.http}`,
      HAPROXY_CERT_FILE: addresses.certificate,
      HAPROXY_ERRORS_DIR: errors,
      HAPROXY_PG_BIND: `127.0.0.1:${addresses.postgres}`,
      ISSUER1_ADDRESS: addresses.issuers[0],
      ISSUER2_ADDRESS: addresses.issuers[1],
      ISSUER3_ADDRESS: addresses.issuers[2],
      PG1_ADDRESS: pg1.address,
      PG1_REST_PORT: String(pg1.restPort),
      PG2_ADDRESS: pg2.address,
      PG2_REST_PORT: String(pg2.restPort),
      PG3_ADDRESS: pg3.address,
      PG3_REST_PORT: String(pg3.restPort),
    });
    run.start(name, HAPROXY, ['-db', '-f', config], { cwd: dir });
    const haproxy = new Haproxy(join(dir, 'admin.sock'), { http: addresses.http, postgres: addresses.postgres });
    await until('HAProxy to open its admin socket', () => existsSync(haproxy.socket), 10_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${run.logTail(name)}`);
    });
    return haproxy;
  }

  get url(): string {
    return `https://127.0.0.1:${this.ports.http}`;
  }

  /** One command to the runtime API; its answer. */
  command(line: string): Promise<string> {
    return new Promise((resolve, reject) => {
      let answer = '';
      const client = connect(this.socket, () => client.end(`${line}\n`));
      client.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      client.on('end', () => resolve(answer));
      client.on('error', reject);
    });
  }

  /** Each server of `backend` with its state as HAProxy sees it now (UP, DOWN, MAINT…). */
  async states(backend: string): Promise<Map<string, string>> {
    const csv = await this.command('show stat');
    const states = new Map<string, string>();
    for (const row of csv.split('\n')) {
      const [proxy, server, ...fields] = row.split(',');
      if (proxy === backend && server !== 'BACKEND' && server !== 'FRONTEND') states.set(server!, fields[15]!);
    }
    return states;
  }

  /** Sessions open now between HAProxy and one server of `backend`. */
  async sessions(backend: string, server: string): Promise<number> {
    const csv = await this.command('show stat');
    const row = csv.split('\n').find((line) => line.startsWith(`${backend},${server},`));
    // show stat's column 4 (from 0): scur.
    return Number(row?.split(',')[4] ?? NaN);
  }

  /** How many requests the backend sent again after a failed try, and how many of those to another server. */
  async retries(backend: string): Promise<{ retries: number; redispatches: number }> {
    const csv = await this.command('show stat');
    const row = csv.split('\n').find((line) => line.startsWith(`${backend},BACKEND,`));
    const fields = row?.split(',') ?? [];
    // show stat's columns 15 and 16 (from 0): wretr and wredis.
    return { retries: Number(fields[15] ?? 0), redispatches: Number(fields[16] ?? 0) };
  }

  /** Waits until these servers of `backend` are UP. */
  async waitUp(backend: string, servers: string[], timeoutMs = 20_000): Promise<void> {
    await until(
      `${servers.join(', ')} UP in ${backend}`,
      async () => {
        const states = await this.states(backend);
        return servers.every((server) => states.get(server) === 'UP');
      },
      timeoutMs,
    );
  }
}
