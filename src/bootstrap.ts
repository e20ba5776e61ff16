import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { buildApp } from './app.ts';
import { type Config, ConfigError } from './config.ts';
import { resolveAdminToken } from './domain/admin-token.ts';
import { newKeyEncryptionKey, parseKeyEncryptionKey } from './domain/key-encryption.ts';
import type { App } from './http/context.ts';
import { openStore, sqlitePath } from './store/open-store.ts';
import type { Store } from './store/store.ts';

/** Where a generated key-encryption key is kept: beside the SQLite file (never inside it), or ./data. */
export function keyEncryptionKeyFile(config: Config): string {
  const path = sqlitePath(config.databaseUrl);
  const dir = path === null || path === ':memory:' ? resolve('data') : dirname(path);
  return join(dir, 'key-encryption.key');
}

/** KEY_ENCRYPTION_KEY, or the key file (created with mode 0600 on first start). */
export function resolveKeyEncryptionKey(config: Config): Buffer {
  if (config.keyEncryptionKey !== null) {
    const key = parseKeyEncryptionKey(config.keyEncryptionKey);
    if (!key) throw new ConfigError('KEY_ENCRYPTION_KEY must be 32 bytes as 64 hex digits or base64');
    return key;
  }
  const file = keyEncryptionKeyFile(config);
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

/** A Redis client for shared rate-limit counters; while disconnected, commands fail at once instead of queueing. */
export function connectRedis(url: string): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  let reported = false;
  redis.on('error', (error: Error) => {
    if (reported) return;
    reported = true;
    process.stderr.write(`redis: ${error.message} (rate limits fail open until it is back)\n`);
  });
  redis.on('ready', () => (reported = false));
  return redis;
}

export interface Issuer {
  app: App;
  store: Store;
  redis: Redis | null;
  /** The admin token generated on this start (first start without ADMIN_TOKEN), to print once. */
  generatedAdminToken: string | null;
  close(): Promise<void>;
}

/** Opens the store, keys and counters the configuration names and builds the app on them. */
export async function openIssuer(config: Config): Promise<Issuer> {
  const keyEncryptionKey = resolveKeyEncryptionKey(config);
  const store = await openStore(config.databaseUrl);
  const redis = config.redisUrl ? connectRedis(config.redisUrl) : null;
  try {
    const admin = await resolveAdminToken(store, config.adminToken);
    const app = await buildApp(config, { store, keyEncryptionKey, adminTokenHash: admin.hash, redis });
    return {
      app,
      store,
      redis,
      generatedAdminToken: admin.generated,
      close: async () => {
        await app.close();
        await store.close();
        if (redis) await redis.quit();
      },
    };
  } catch (error) {
    await store.close();
    if (redis) redis.disconnect();
    throw error;
  }
}
