/**
 * The whole of deploy/ on one machine, each part on its own ports and in one run directory (the shared
 * PostgreSQL on 5432 and Redis on 6379 are never touched): etcd and three Patroni-run PostgreSQL nodes
 * with synchronous replication, a Redis master and replica with three Sentinels, HAProxy, and three
 * issuer instances started as deploy/systemd/ticket-issuer.service says, through HAProxy to the
 * database and through the Sentinels to Redis (over TLS, with a client certificate).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../helpers/server.ts';
import { Authority, trustInThisProcess } from './certificates.ts';
import { Haproxy, haproxyMissing } from './haproxy.ts';
import { PostgresCluster, postgresClusterMissing } from './postgres-cluster.ts';
import { account, RunDirectory, until } from './processes.ts';
import { MASTER_NAME, RedisCluster, redisClusterMissing } from './redis-cluster.ts';
import { parseServiceUnit, readEnvironmentFile } from './systemd-unit.ts';
import { renderFile } from './templates.ts';

const ROOT = join(import.meta.dirname, '..', '..');
/** The account the issuers run as here (the unit's User=, which the guide names ticket-issuer). */
export const ISSUER_USER = 'nobody';

/** Why this machine cannot run the cluster, or null. */
export function clusterMissing(): string | null {
  if (process.getuid?.() !== 0) return 'not root (the cluster runs PostgreSQL as postgres and the issuers as nobody)';
  return haproxyMissing() ?? postgresClusterMissing() ?? redisClusterMissing() ?? projectUnreadable();
}

/** Why the issuers' user cannot read the project (a checkout inside a private home directory), or null. */
function projectUnreadable(): string | null {
  const files = [join(ROOT, 'scripts', 'start.js'), join(ROOT, 'node_modules', 'fastify', 'package.json')];
  const { gid } = account(ISSUER_USER);
  const check = spawnSync(
    'setpriv',
    [`--reuid=${ISSUER_USER}`, `--regid=${gid}`, '--clear-groups', '--', 'cat', ...files],
    {
      stdio: 'ignore',
    },
  );
  return check.status === 0 ? null : `${ISSUER_USER} cannot read the project at ${ROOT}`;
}

export interface IssuerInstance {
  name: string;
  port: number;
  dir: string;
}

export class HaCluster {
  private constructor(
    readonly run: RunDirectory,
    readonly postgres: PostgresCluster,
    readonly redis: RedisCluster,
    readonly haproxy: Haproxy,
    readonly issuers: IssuerInstance[],
    readonly adminToken: string,
    private readonly startInstance: (name: string, port: number) => Promise<IssuerInstance>,
  ) {}

  /**
   * Starts it all; everything started is ended again if a part fails to start. `issuerEnv`: settings
   * the issuers get beyond deploy/systemd/issuer.env, as a second EnvironmentFile would give them.
   */
  static async start(options: { issuerEnv?: Record<string, string> } = {}): Promise<HaCluster> {
    const run = new RunDirectory('issuer-ha-');
    try {
      return await HaCluster.startIn(run, options.issuerEnv ?? {});
    } catch (error) {
      await run.destroy();
      throw error;
    }
  }

  private static async startIn(run: RunDirectory, issuerEnv: Record<string, string>): Promise<HaCluster> {
    const secret = () => randomBytes(24).toString('hex');
    // The cluster's authorities and passwords, made for this run as docs/deploy.md makes them.
    const tlsDir = run.dir('tls');
    const [etcdAuthority, postgresAuthority, gatesAuthority, redisAuthority] = [
      'etcd',
      'postgres',
      'gates',
      'redis',
    ].map((name) => Authority.make(tlsDir, name));
    const superuser = secret();
    const redisPasswords = { redis: secret(), sentinel: secret() };
    const [postgres, redis] = await Promise.all([
      PostgresCluster.start(
        run,
        { superuser, replication: secret(), rewind: secret(), restApi: secret() },
        { etcd: etcdAuthority!, postgres: postgresAuthority! },
      ),
      RedisCluster.start(run, redisPasswords, redisAuthority!),
    ]);
    // The scanners here trust the authority of HAProxy's certificate, as scanners given it would.
    trustInThisProcess(gatesAuthority!.ca);
    const issuerPorts = [await freePort(), await freePort(), await freePort()];
    const [pg1, pg2, pg3] = postgres.nodes.map((n) => ({ address: `127.0.0.1:${n.pgPort}`, restPort: n.restPort }));
    const haproxy = await Haproxy.start(run, {
      http: await freePort(),
      postgres: await freePort(),
      issuers: issuerPorts.map((port) => `127.0.0.1:${port}`) as [string, string, string],
      postgresNodes: [pg1!, pg2!, pg3!],
      certificate: gatesAuthority!.issue('haproxy', ['127.0.0.1']).bundle,
    });
    const databasePassword = secret();
    await postgres.asSuperuser(
      `CREATE ROLE issuer LOGIN PASSWORD '${databasePassword}';\nCREATE DATABASE issuer OWNER issuer;\n`,
    );

    const adminToken = secret();
    // The issuers' client certificate for Redis and the Sentinels, readable by their user only.
    const redisClient = redisAuthority!.issue('issuer-m1', ['127.0.0.1'], account(ISSUER_USER));
    const shared = {
      PUBLIC_URL: haproxy.url,
      ISSUER_DB_PASSWORD: databasePassword,
      HAPROXY_PG_ADDRESS: `127.0.0.1:${haproxy.ports.postgres}`,
      REDIS_SENTINELS: redis.sentinelList,
      REDIS_MASTER_NAME: MASTER_NAME,
      REDIS_PASSWORD: redisPasswords.redis,
      REDIS_SENTINEL_PASSWORD: redisPasswords.sentinel,
      REDIS_CA_FILE: redis.ca,
      REDIS_CLIENT_CERT_FILE: redisClient.cert,
      REDIS_CLIENT_KEY_FILE: redisClient.key,
      PG_CA_FILE: postgres.ca,
      ADMIN_TOKEN: adminToken,
      KEY_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      HAPROXY_ADDRESSES: '127.0.0.1',
    };
    const startInstance = (name: string, port: number) => startIssuer(run, name, port, shared, issuerEnv);
    const issuers: IssuerInstance[] = [];
    // One after the other: the first applies the migrations.
    for (const [i, port] of issuerPorts.entries()) issuers.push(await startInstance(`issuer${i + 1}`, port));
    await haproxy.waitUp('issuers', ['issuer1', 'issuer2', 'issuer3']);
    await haproxy.waitUp('postgres', [`pg${postgres.nodes.indexOf(await postgres.leader()) + 1}`]);
    return new HaCluster(run, postgres, redis, haproxy, issuers, adminToken, startInstance);
  }

  get url(): string {
    return this.haproxy.url;
  }

  /** Stops an instance as `systemctl stop` would (SIGTERM: it finishes what is in flight) and waits until it ended. */
  async stopIssuer(instance: IssuerInstance): Promise<void> {
    for (const pid of this.run.processesIn(instance.dir)) process.kill(pid, 'SIGTERM');
    await until(`${instance.name} to stop`, () => this.run.processesIn(instance.dir).length === 0, 20_000);
  }

  /** Starts a stopped instance again, as `systemctl start` would; resolves once its /readyz answers 200. */
  async startIssuer(instance: IssuerInstance): Promise<void> {
    await this.startInstance(instance.name, instance.port);
  }

  /** Kills an issuer instance (SIGKILL), as its machine dying would. */
  async killIssuer(instance: IssuerInstance): Promise<void> {
    await this.run.killAllIn(instance.dir);
  }

  /** Ends every process and removes every file of the cluster. */
  destroy(): Promise<void> {
    return this.run.destroy();
  }
}

/**
 * dist/ as `npm ci` leaves it: the issuers, unprivileged, cannot build it themselves (ProtectSystem
 * would forbid it too), and `npm start` builds first when a source changed since the last build.
 */
function ensureBuilt(): void {
  const script =
    "const { staleness, build } = await import('./scripts/build.js'); if (staleness('server') !== null) await build();";
  const built = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`the build failed: ${built.stderr}`);
}

/**
 * Starts an instance as systemd would start deploy/systemd/ticket-issuer.service: the unit and its
 * environment file filled in, then its ExecStart run in its WorkingDirectory as its User, with its
 * Environment and EnvironmentFile (and the variables systemd sets for a User=).
 */
async function startIssuer(
  run: RunDirectory,
  name: string,
  port: number,
  shared: Record<string, string>,
  extra: Record<string, string>,
) {
  ensureBuilt();
  const dir = run.dir(name, account(ISSUER_USER));
  const config = run.dir(`${name}-config`);
  const envFile = renderFile('systemd/issuer.env', join(config, 'issuer.env'), {
    ...shared,
    ISSUER_HOST: '127.0.0.1',
    ISSUER_PORT: String(port),
  });
  const unitFile = renderFile('systemd/ticket-issuer.service', join(config, 'ticket-issuer.service'), {
    ISSUER_DIR: ROOT,
    ISSUER_USER,
    ISSUER_GROUP: 'nogroup',
    ISSUER_ENV_FILE: envFile,
    ISSUER_STATE_DIR: dir,
    NODE_BIN: process.execPath,
  });
  const unit = parseServiceUnit(readFileSync(unitFile, 'utf8'));
  const env: Record<string, string> = {
    HOME: '/nonexistent',
    USER: unit.user,
    LOGNAME: unit.user,
    ...unit.environment,
  };
  for (const file of unit.environmentFiles) Object.assign(env, readEnvironmentFile(file));
  Object.assign(env, extra);
  run.start(name, unit.execStart[0]!, unit.execStart.slice(1), { cwd: unit.workingDirectory, env, as: unit.user });
  await until(
    `${name} to be ready`,
    async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200,
    60_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${run.logTail(name)}`);
  });
  return { name, port, dir };
}
