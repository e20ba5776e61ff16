import { guardRedisStreams } from './redis-streams.ts';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Redis } from 'ioredis';
import { buildApp } from './app.ts';
import { type Config, ConfigError } from './config.ts';
import { oidcDefaultRoleNotice } from './config-oidc.ts';
import { adminTokenHashSource, resolveAdminToken } from './domain/admin-token.ts';
import { resolveIdentity } from './domain/identity.ts';
import { newKeyEncryptionKey, parseKeyEncryptionKey } from './domain/key-encryption.ts';
import type { App } from './http/context.ts';
import { readCertificateAndKey } from './pem-files.ts';
import { readRedisTls, type RedisTlsOptions } from './redis-tls.ts';
import { openStore, sqlitePath } from './store/open-store.ts';
import type { Store } from './store/store.ts';

/** Where a generated key-encryption key is kept: beside the SQLite file (never inside it), or ./data. */
export function keyEncryptionKeyFile(config: Config): string {
  const path = sqlitePath(config.databaseUrl);
  const dir = path === null || path === ':memory:' ? resolve('data') : dirname(path);
  return join(dir, 'key-encryption.key');
}

/**
 * KEY_ENCRYPTION_KEY, or the key file (created with mode 0600 on first start). When the store
 * already holds signing keys, a missing file is never replaced by a new one: that key could not
 * open them, and every ticket sold would stop verifying.
 */
export function resolveKeyEncryptionKey(config: Config, storeHasKeys: boolean): Buffer {
  if (config.keyEncryptionKey !== null) {
    const key = parseKeyEncryptionKey(config.keyEncryptionKey);
    if (!key) throw new ConfigError('KEY_ENCRYPTION_KEY must be 32 bytes as 64 hex digits or base64');
    return key;
  }
  const file = keyEncryptionKeyFile(config);
  if (storeHasKeys && !existsSync(file)) {
    throw new ConfigError(
      `the key-encryption key file ${file} is missing, but the database holds signing keys sealed with it: ` +
        'restore the file from a backup (or set KEY_ENCRYPTION_KEY to its value); a new key cannot open them',
    );
  }
  mkdirSync(dirname(file), { recursive: true });
  try {
    writeFileSync(file, `${newKeyEncryptionKey()}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  chmodSync(file, 0o600);
  const key = parseKeyEncryptionKey(readFileSync(file, 'utf8'));
  if (!key) throw new ConfigError(`${file} does not hold a 32-byte key-encryption key`);
  return key;
}

/**
 * A Redis client for shared rate-limit counters: at REDIS_URL, or the master the Sentinels of
 * REDIS_SENTINELS name (asked again at each reconnection, so a promoted replica is found; a Sentinel's
 * `+switch-master` also makes it reconnect, should the old master still answer it). While
 * disconnected, commands fail at once instead of queueing; on a connection that went silent, each
 * command (a Sentinel's included) gives up after a second. Either way the rate limits turn to the
 * instance's own counters (see `SharedRateLimits`, which logs the one warning), and the client keeps
 * reconnecting by itself (at most 2 s apart). REDIS_PASSWORD goes to Redis (the master the Sentinels
 * name included), REDIS_SENTINEL_PASSWORD to the Sentinels. `tls` (readRedisTls): over TLS, to a
 * rediss:// REDIS_URL, or to the Sentinels and their master with REDIS_SENTINEL_TLS. Null when
 * neither is configured.
 */
export async function connectRedis(
  config: Pick<Config, 'redisUrl' | 'redisSentinel' | 'redisPasswords'>,
  tls: RedisTlsOptions | null = null,
): Promise<Redis | null> {
  if (config.redisUrl === null && config.redisSentinel === null) return null;
  // Loaded only when configured: ioredis defines every command of Redis as it loads.
  const { Redis } = await import('ioredis');
  await guardRedisStreams();
  const backOff = (attempt: number) => Math.min(attempt * 100, 2_000);
  const options = {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    commandTimeout: 1_000,
    connectTimeout: 2_000,
    retryStrategy: backOff,
    // A wrong or missing password refuses every command (NOAUTH, WRONGPASS): the same fallback as Redis down.
    ...(config.redisPasswords.redis !== null ? { password: config.redisPasswords.redis } : {}),
  };
  const sentinel = config.redisSentinel;
  const redis = sentinel
    ? new Redis({
        ...options,
        sentinels: sentinel.sentinels,
        name: sentinel.masterName,
        sentinelCommandTimeout: 1_000,
        sentinelRetryStrategy: backOff,
        failoverDetector: true,
        ...(config.redisPasswords.sentinel !== null ? { sentinelPassword: config.redisPasswords.sentinel } : {}),
        // The Sentinels and the master they name alike: each certificate checked against REDIS_TLS_CA.
        ...(tls !== null ? { sentinelTLS: tls, tls, enableTLSForSentinelMode: true } : {}),
      })
    : new Redis(config.redisUrl!, { ...options, ...(tls !== null ? { tls } : {}) });
  // Without a listener, a connection error would end the process.
  redis.on('error', () => undefined);
  // A Sentinel's +switch-master heard while the client asks the Sentinels for the master it lost
  // (ioredis's failover detector of the old connection still listens) cancels that question, and
  // ioredis then ends the client for good instead of retrying: connect it again, as its own retries would.
  const again = () => {
    if (!closing.has(redis)) redis.connect().catch(() => undefined);
  };
  redis.on('end', () => setTimeout(again, 500).unref());
  return redis;
}

/** The clients being closed on purpose: those alone may end. */
const closing = new WeakSet<Redis>();

export interface Issuer {
  app: App;
  store: Store;
  redis: Redis | null;
  /** The configuration in force, `baseUrl` being the identity kept by the store. */
  config: Config;
  /** The admin token generated on this start (first start without ADMIN_TOKEN), to print once. */
  generatedAdminToken: string | null;
  /** What the operator should read at start (identity kept or changed). */
  notices: string[];
  close(): Promise<void>;
}

/** A URL without its password, for messages. */
export function withoutPassword(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

/** Opens the store DATABASE_URL names; a failure names the URL (without its password). */
export function openIssuerStore(config: Config): Promise<Store> {
  return openNamedStore(config.databaseUrl, config.requestTimeoutSeconds);
}

async function openNamedStore(databaseUrl: string, requestTimeoutSeconds: number): Promise<Store> {
  try {
    return await openStore(databaseUrl, requestTimeoutSeconds);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot open the database at DATABASE_URL=${withoutPassword(databaseUrl)}: ${reason}`);
  }
}

/** Quits Redis politely when connected; when it is down there is nothing to say goodbye to. */
async function closeRedis(redis: Redis): Promise<void> {
  closing.add(redis);
  if (redis.status === 'ready') {
    const quit = await redis.quit().catch(() => null);
    if (quit !== null) return;
  }
  redis.disconnect();
}

/**
 * The certificate and key of TLS_CERT_FILE and TLS_KEY_FILE, checked before anything opens: readable,
 * PEM, and a key that belongs to the certificate. Errors name the file, never its content.
 */
export function readTls(files: Config['tls']): { cert: Buffer; key: Buffer } | null {
  if (files === null) return null;
  return readCertificateAndKey('TLS_CERT_FILE', files.certFile, 'TLS_KEY_FILE', files.keyFile);
}

/** Opens the store, keys and counters the configuration names and builds the app on them. */
export async function openIssuer(configured: Config): Promise<Issuer> {
  const tls = readTls(configured.tls);
  const redisTls = readRedisTls(configured.redisTls);
  const store = await openNamedStore(configured.databaseUrl, configured.requestTimeoutSeconds);
  const redis = await connectRedis(configured, redisTls);
  try {
    const storeHasKeys = (await store.signingKeys.listSigningKeys()).length > 0;
    const keyEncryptionKey = resolveKeyEncryptionKey(configured, storeHasKeys);
    const identity = await resolveIdentity(store, configured);
    const config = { ...configured, baseUrl: identity.baseUrl };
    const admin = await resolveAdminToken(store, config.adminToken);
    const app = await buildApp(config, {
      store,
      keyEncryptionKey,
      adminTokenHash: admin.hash,
      adminTokenHashSource: adminTokenHashSource(store, admin.hash, config.adminToken !== null),
      redis,
      tls,
    });
    return {
      app,
      store,
      redis,
      config,
      generatedAdminToken: admin.generated,
      notices: [identity.notice, oidcDefaultRoleNotice(config.oidc)].filter((n): n is string => n !== null),
      close: async () => {
        await app.close();
        await store.close();
        if (redis) await closeRedis(redis);
      },
    };
  } catch (error) {
    await store.close();
    if (redis) await closeRedis(redis);
    throw error;
  }
}
