import { DEFAULT_ANNUL_WINDOW_S } from '@ticket-issuer/protocol';
/** Configuration from the environment: one typed object, defaults in one place, checked at boot. */
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { ConfigError, type Env, HOST_NAME, integer, text } from './config-read.ts';
import { type RateLimits, rateLimits } from './config-limits.ts';
import {
  type RedisPasswords,
  redisPasswords,
  type RedisSentinel,
  redisSentinel,
  type RedisTls,
  redisTls,
  redisUrl,
} from './config-redis.ts';
import { type OidcSettings, oidcSettings } from './config-oidc.ts';
import { type AppleSettings, appleSettings } from './config-apple.ts';
import { type GoogleWalletSettings, googleWalletSettings } from './config-google.ts';
import { type MailSettings, mailSettings } from './config-mail.ts';
import { parseKeyEncryptionKey } from './domain/key-encryption.ts';

export { ConfigError } from './config-read.ts';
export type { RedisPasswords, RedisSentinel, RedisTls } from './config-redis.ts';
export type { OidcSettings } from './config-oidc.ts';
export type { RateLimits } from './config-limits.ts';
export type { AppleSettings } from './config-apple.ts';
export type { GoogleWalletSettings } from './config-google.ts';
export type { MailSettings } from './config-mail.ts';

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  /** Whether BASE_URL was set; otherwise the identity stored at the first start is kept (see bootstrap). */
  baseUrlExplicit: boolean;
  issuerName: string;
  databaseUrl: string;
  redisUrl: string | null;
  /** REDIS_SENTINELS and REDIS_SENTINEL_MASTER: Redis found through Sentinel (instead of REDIS_URL); else null. */
  redisSentinel: RedisSentinel | null;
  /** Prefix of every Redis key, so that several issuers can share one Redis. */
  redisKeyPrefix: string;
  /** REDIS_PASSWORD and REDIS_SENTINEL_PASSWORD: what Redis and the Sentinels ask of the issuer. */
  redisPasswords: RedisPasswords;
  /** REDIS_TLS_CA, REDIS_TLS_CERT, REDIS_TLS_KEY, REDIS_SENTINEL_TLS: Redis over TLS (file paths); null: in clear. */
  redisTls: RedisTls | null;
  adminToken: string | null;
  keyEncryptionKey: string | null;
  /** Single sign-on with OpenID Connect (OIDC_ISSUER_URL, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET); null: off. */
  oidc: OidcSettings | null;
  /** Apple Wallet passes and their PassKit web service (APPLE_*, APNS_*; config-apple.ts); null: off. */
  apple: AppleSettings | null;
  /** Google Wallet (GOOGLE_WALLET_ISSUER_ID, GOOGLE_WALLET_SERVICE_ACCOUNT, GOOGLE_WALLET_API_URL); null: off. */
  googleWallet: GoogleWalletSettings | null;
  trustProxy: boolean | string;
  rateLimits: RateLimits;
  logLevel: string;
  bodyLimitBytes: number;
  /** Bearer token of GET /metrics; null: the admin token is accepted. */
  metricsToken: string | null;
  /** A request whose headers and body have not fully arrived by then is dropped. */
  requestTimeoutSeconds: number;
  /** How long after its scan a scanner may annul an entry (ANNUL_WINDOW_S). */
  annulWindowSeconds: number;
  /** PASSWORD_HASH_CONCURRENCY: password hashes at once on this instance (hash-pool.ts). */
  passwordHashConcurrency: number;
  /** TLS_CERT_FILE and TLS_KEY_FILE (PEM): both set, the issuer serves HTTPS on PORT; else null. */
  tls: { certFile: string; keyFile: string } | null;
  /** Mail to ticket holders (SMTP_URL, MAIL_FROM, MAIL_RETRY_SCHEDULE_S); null: not configured. */
  mail: MailSettings | null;
  webhooks: {
    /** Seconds a receiver has to answer (WEBHOOK_TIMEOUT_S). */
    timeoutSeconds: number;
    /** Delays after each failed attempt, in seconds (WEBHOOK_RETRY_SCHEDULE_S). */
    retrySchedule: number[];
    /** Receivers on loopback and private networks are allowed (WEBHOOK_ALLOW_PRIVATE). */
    allowPrivate: boolean;
    /** Delivered and failed messages are deleted, with their attempts, this many days after they ended (WEBHOOK_RETENTION_DAYS). */
    retentionDays: number;
  };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function baseUrl(env: Env, port: number, tls: boolean): string {
  const raw = text(env, 'BASE_URL') ?? `${tls ? 'https' : 'http'}://localhost:${port}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`BASE_URL must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`BASE_URL must be an http(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

/** TLS_CERT_FILE and TLS_KEY_FILE: both or neither. */
function tlsFiles(env: Env): Config['tls'] {
  const certFile = text(env, 'TLS_CERT_FILE');
  const keyFile = text(env, 'TLS_KEY_FILE');
  if (certFile === null && keyFile === null) return null;
  if (certFile === null) throw new ConfigError('TLS_KEY_FILE is set but TLS_CERT_FILE is not: set both, or neither');
  if (keyFile === null) throw new ConfigError('TLS_CERT_FILE is set but TLS_KEY_FILE is not: set both, or neither');
  return { certFile, keyFile };
}

/** TRUST_PROXY: unset/false (use the socket address), true (trust X-Forwarded-For), or a list of proxy addresses/CIDRs. */
function trustProxy(env: Env): boolean | string {
  const raw = text(env, 'TRUST_PROXY');
  if (raw === null || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  const entries = raw.split(',').map((entry) => entry.trim());
  const bad = entries.find((entry) => !isAddressOrCidr(entry));
  if (bad !== undefined) {
    throw new ConfigError(
      `TRUST_PROXY must be true, false, or proxy addresses/CIDRs separated by commas; "${bad}" is none of these`,
    );
  }
  return entries.join(',');
}

function isAddressOrCidr(entry: string): boolean {
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/** DATABASE_URL: `sqlite:<path>`, a bare path, or a postgres(ql):// URL; a typo must not become a file name. */
function databaseUrl(env: Env): string {
  const raw = text(env, 'DATABASE_URL') ?? 'sqlite:./data/issuer.db';
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(raw)?.[1]?.toLowerCase();
  if (scheme === undefined || scheme === 'sqlite') {
    if (raw.replace(/^sqlite:(\/\/)?/i, '') === '') throw new ConfigError('DATABASE_URL names no SQLite file');
    return raw;
  }
  if (scheme !== 'postgres' && scheme !== 'postgresql') {
    throw new ConfigError(
      `DATABASE_URL must start with sqlite:, postgres:// or postgresql:// (or be a file path), not "${scheme}:"`,
    );
  }
  if (!URL.canParse(raw) || new URL(raw).hostname === '') {
    throw new ConfigError('DATABASE_URL is not a valid postgres:// URL (postgres://user:password@host:5432/database)');
  }
  return raw;
}

/** HOST: an IP address or a host name to bind to. */
function host(env: Env): string {
  const raw = text(env, 'HOST') ?? '127.0.0.1';
  if (isIP(raw) === 0 && !HOST_NAME.test(raw)) {
    throw new ConfigError(`HOST must be an IP address or a host name, got "${raw}"`);
  }
  return raw;
}

/** KEY_ENCRYPTION_KEY: unset, or 32 bytes as 64 hex digits or base64. */
function keyEncryptionKey(env: Env): string | null {
  const value = text(env, 'KEY_ENCRYPTION_KEY');
  if (value !== null && parseKeyEncryptionKey(value) === null) {
    throw new ConfigError('KEY_ENCRYPTION_KEY must be 32 bytes as 64 hex digits or base64');
  }
  return value;
}

/** A bearer token chosen by the operator: long enough not to be guessed. */
function secretToken(env: Env, name: string): string | null {
  const value = text(env, name);
  if (value !== null && (value.length < 24 || /\s/.test(value))) {
    throw new ConfigError(`${name} must be at least 24 characters long, without spaces`);
  }
  return value;
}

/** Reads and checks the configuration; throws ConfigError naming the bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const tls = tlsFiles(env);
  const logLevel = text(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  return {
    port,
    host: host(env),
    baseUrl: baseUrl(env, port, tls !== null),
    baseUrlExplicit: text(env, 'BASE_URL') !== null,
    issuerName: text(env, 'ISSUER_NAME') ?? 'Ticket Issuer',
    databaseUrl: databaseUrl(env),
    redisUrl: redisUrl(env),
    redisSentinel: redisSentinel(env),
    redisKeyPrefix: text(env, 'REDIS_KEY_PREFIX') ?? 'ticket-issuer:',
    redisPasswords: redisPasswords(env),
    redisTls: redisTls(env),
    adminToken: secretToken(env, 'ADMIN_TOKEN'),
    keyEncryptionKey: keyEncryptionKey(env),
    oidc: oidcSettings(env),
    apple: appleSettings(env),
    googleWallet: googleWalletSettings(env),
    trustProxy: trustProxy(env),
    rateLimits: rateLimits(env),
    logLevel,
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 8 * 1024 * 1024, 1024, 64 * 1024 * 1024),
    metricsToken: secretToken(env, 'METRICS_TOKEN'),
    requestTimeoutSeconds: integer(env, 'REQUEST_TIMEOUT_S', 15, 1, 3600),
    annulWindowSeconds: integer(env, 'ANNUL_WINDOW_S', DEFAULT_ANNUL_WINDOW_S, 1, 48 * 3600),
    passwordHashConcurrency: integer(env, 'PASSWORD_HASH_CONCURRENCY', Math.max(1, availableParallelism() - 1), 1, 256),
    tls,
    mail: mailSettings(env),
    webhooks: {
      timeoutSeconds: integer(env, 'WEBHOOK_TIMEOUT_S', 10, 1, 300),
      retrySchedule: retrySchedule(env),
      allowPrivate: flag(env, 'WEBHOOK_ALLOW_PRIVATE'),
      retentionDays: retentionDays(env),
    },
  };
}

/** WEBHOOK_RETRY_SCHEDULE_S: delays in seconds after each failed attempt, separated by commas. */
function retrySchedule(env: Env): number[] {
  const raw = text(env, 'WEBHOOK_RETRY_SCHEDULE_S') ?? '5,300,1800,7200,18000,36000,36000';
  const delays = raw.split(',').map((part) => part.trim());
  if (delays.length > 50 || delays.some((d) => !/^\d{1,6}$/.test(d) || Number(d) < 1 || Number(d) > 604_800)) {
    throw new ConfigError(
      `WEBHOOK_RETRY_SCHEDULE_S must be up to 50 delays in seconds (1 to 604800) separated by commas, got "${raw}"`,
    );
  }
  return delays.map(Number);
}

/** WEBHOOK_RETENTION_DAYS: a positive number of days, fractions allowed (at most 100 years). */
function retentionDays(env: Env): number {
  const raw = text(env, 'WEBHOOK_RETENTION_DAYS');
  if (raw === null) return 30;
  const days = Number(raw);
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(raw) || !(days > 0) || days > 36_500) {
    throw new ConfigError(`WEBHOOK_RETENTION_DAYS must be a positive number of days (fractions allowed), got "${raw}"`);
  }
  return days;
}

/** A boolean variable: true/1 or false/0 (unset: false). */
function flag(env: Env, name: string): boolean {
  const raw = text(env, name);
  if (raw === null || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}
