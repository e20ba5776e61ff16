/** Where the shared rate-limit counters live: REDIS_URL, or Redis found through Sentinel; and their passwords. */
import { isIP } from 'node:net';
import { ConfigError, type Env, HOST_NAME, text } from './config-read.ts';

/** Where the Sentinels that know the Redis master listen, and the master's name among them. */
export interface RedisSentinel {
  sentinels: { host: string; port: number }[];
  masterName: string;
}

/** REDIS_URL: unset, or a redis:// or rediss:// URL. */
export function redisUrl(env: Env): string | null {
  const raw = text(env, 'REDIS_URL');
  if (raw === null) return null;
  if (!/^rediss?:\/\//i.test(raw) || !URL.canParse(raw)) {
    throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379');
  }
  return raw;
}

/**
 * REDIS_SENTINELS (`host:port,…`; an IPv6 address in brackets) and REDIS_SENTINEL_MASTER: both or
 * neither, and never with REDIS_URL (which of the two ways was meant would be a guess).
 */
export function redisSentinel(env: Env): RedisSentinel | null {
  const list = text(env, 'REDIS_SENTINELS');
  const masterName = text(env, 'REDIS_SENTINEL_MASTER');
  if (list === null && masterName === null) return null;
  if (text(env, 'REDIS_URL') !== null) {
    throw new ConfigError(
      'REDIS_URL, REDIS_SENTINELS and REDIS_SENTINEL_MASTER: set REDIS_URL, or the two Sentinel variables instead, not both',
    );
  }
  if (masterName === null) {
    throw new ConfigError('REDIS_SENTINELS is set but REDIS_SENTINEL_MASTER is not: set both, or neither');
  }
  if (list === null) {
    throw new ConfigError('REDIS_SENTINEL_MASTER is set but REDIS_SENTINELS is not: set both, or neither');
  }
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(masterName)) {
    throw new ConfigError(
      `REDIS_SENTINEL_MASTER must be the master's name as the Sentinels know it (letters, digits, . _ -), got "${masterName}"`,
    );
  }
  const entries = list.split(',').map((entry) => entry.trim());
  const sentinels = entries.map(sentinelAddress);
  const bad = entries.find((_, i) => sentinels[i] === null);
  if (bad !== undefined || entries.length > 32) {
    throw new ConfigError(
      'REDIS_SENTINELS must be up to 32 host:port addresses separated by commas (e.g. 10.0.0.1:26379,10.0.0.2:26379), ' +
        (bad === undefined ? `got ${entries.length}` : `"${bad}" is not one`),
    );
  }
  return { sentinels: sentinels as RedisSentinel['sentinels'], masterName };
}

/** `host:port` or `[ipv6]:port` with a port from 1 to 65535, or null. */
function sentinelAddress(entry: string): { host: string; port: number } | null {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(entry);
  if (!match) return null;
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return null;
  if (match[1] !== undefined) return isIP(match[1]) === 6 ? { host: match[1], port } : null;
  const host = match[2]!;
  return isIP(host) === 4 || HOST_NAME.test(host) ? { host, port } : null;
}

/** The passwords Redis and the Sentinels ask of the issuer; null where none is sent. */
export interface RedisPasswords {
  /** REDIS_PASSWORD: sent to Redis itself (its `requirepass`), whichever way Redis is found. */
  redis: string | null;
  /** REDIS_SENTINEL_PASSWORD: sent to the Sentinels (their own `requirepass`). */
  sentinel: string | null;
}

/**
 * REDIS_PASSWORD and REDIS_SENTINEL_PASSWORD. Each only where it is used: REDIS_PASSWORD with REDIS_URL
 * or the Sentinels (never beside a password inside REDIS_URL: which one counts would be a guess),
 * REDIS_SENTINEL_PASSWORD with the Sentinels.
 */
export function redisPasswords(env: Env): RedisPasswords {
  const redis = password(env, 'REDIS_PASSWORD');
  const sentinel = password(env, 'REDIS_SENTINEL_PASSWORD');
  const url = text(env, 'REDIS_URL');
  const viaSentinel = text(env, 'REDIS_SENTINELS') !== null;
  if (redis !== null && url === null && !viaSentinel) {
    throw new ConfigError(
      'REDIS_PASSWORD is set but neither REDIS_URL nor REDIS_SENTINELS is: it would be sent nowhere',
    );
  }
  if (redis !== null && url !== null && URL.canParse(url) && new URL(url).password !== '') {
    throw new ConfigError('REDIS_URL holds a password and REDIS_PASSWORD is set too: keep one of them');
  }
  if (sentinel !== null && !viaSentinel) {
    throw new ConfigError('REDIS_SENTINEL_PASSWORD is set but REDIS_SENTINELS is not: it would be sent nowhere');
  }
  return { redis, sentinel };
}

/** A password as the environment holds it; unset or empty: null. */
function password(env: Env, name: string): string | null {
  const value = env[name];
  if (value === undefined || value === '') return null;
  // Masked in every log line wherever it appears, so a short one would mask ordinary words too.
  if (value.length < 16 || /[\s]/.test(value)) {
    throw new ConfigError(`${name} must be at least 16 characters long, without spaces (e.g. openssl rand -hex 32)`);
  }
  return value;
}

/**
 * How the issuer speaks TLS to Redis: the settings' file paths (the files are read and checked at
 * start, by readRedisTls, so that no key material sits in the configuration).
 */
export interface RedisTls {
  /** REDIS_TLS_CA: the authority that signed the certificates of Redis and the Sentinels; null: the system's. */
  caFile: string | null;
  /** REDIS_TLS_CERT: the issuer's client certificate, for a Redis with `tls-auth-clients yes`; null: none. */
  certFile: string | null;
  /** REDIS_TLS_KEY: its private key. */
  keyFile: string | null;
  /** REDIS_SENTINEL_TLS: the Sentinels, and the master they name, over TLS (else a rediss:// REDIS_URL). */
  sentinels: boolean;
}

/**
 * REDIS_TLS_CA, REDIS_TLS_CERT, REDIS_TLS_KEY and REDIS_SENTINEL_TLS. TLS is a rediss:// REDIS_URL, or
 * REDIS_SENTINEL_TLS=true beside REDIS_SENTINELS; the files only with TLS (else they would be used
 * nowhere), the certificate and its key both or neither. Null: Redis in clear.
 */
export function redisTls(env: Env): RedisTls | null {
  const rawSentinels = text(env, 'REDIS_SENTINEL_TLS');
  if (rawSentinels !== null && !['true', 'false', '1', '0'].includes(rawSentinels)) {
    throw new ConfigError(`REDIS_SENTINEL_TLS must be true or false, got "${rawSentinels}"`);
  }
  const sentinels = rawSentinels === 'true' || rawSentinels === '1';
  const viaSentinel = text(env, 'REDIS_SENTINELS') !== null;
  if (sentinels && !viaSentinel) {
    throw new ConfigError(
      'REDIS_SENTINEL_TLS is set but REDIS_SENTINELS is not: for one Redis over TLS, write its REDIS_URL as rediss://',
    );
  }
  const caFile = text(env, 'REDIS_TLS_CA');
  const certFile = text(env, 'REDIS_TLS_CERT');
  const keyFile = text(env, 'REDIS_TLS_KEY');
  if (certFile !== null && keyFile === null) {
    throw new ConfigError('REDIS_TLS_CERT is set but REDIS_TLS_KEY is not: set both, or neither');
  }
  if (keyFile !== null && certFile === null) {
    throw new ConfigError('REDIS_TLS_KEY is set but REDIS_TLS_CERT is not: set both, or neither');
  }
  const overTls = /^rediss:\/\//i.test(text(env, 'REDIS_URL') ?? '') || sentinels;
  const named = (['REDIS_TLS_CA', 'REDIS_TLS_CERT', 'REDIS_TLS_KEY'] as const).filter((n) => text(env, n) !== null);
  if (!overTls && named.length > 0) {
    throw new ConfigError(
      `${named.join(', ')} ${named.length > 1 ? 'are' : 'is'} set but Redis is not reached over TLS: ` +
        'write REDIS_URL as rediss://, or set REDIS_SENTINEL_TLS=true beside REDIS_SENTINELS',
    );
  }
  return overTls ? { caFile, certFile, keyFile, sentinels } : null;
}
