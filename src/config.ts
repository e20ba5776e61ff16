/** Configuration from the environment: one typed object, defaults in one place, checked at boot. */

export interface RateLimits {
  enrollPerIp: number;
  enrollPerToken: number;
  checkInPerKey: number;
  statusPerKey: number;
  adminPerToken: number;
  unknownRoutePerIp: number;
  authFailuresPerIp: number;
  windowSeconds: number;
}

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  issuerName: string;
  databaseUrl: string;
  redisUrl: string | null;
  /** Prefix of every Redis key, so that several issuers can share one Redis. */
  redisKeyPrefix: string;
  adminToken: string | null;
  keyEncryptionKey: string | null;
  trustProxy: boolean | string;
  rateLimits: RateLimits;
  logLevel: string;
  bodyLimitBytes: number;
}

/** A configuration problem, reported at boot with the variable's name. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function text(env: Env, name: string): string | null {
  const value = env[name]?.trim();
  return value ? value : null;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === null) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function baseUrl(env: Env, port: number): string {
  const raw = text(env, 'BASE_URL') ?? `http://localhost:${port}`;
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

/** TRUST_PROXY: unset/false (use the socket address), true (trust X-Forwarded-For), or a list of proxy addresses/CIDRs. */
function trustProxy(env: Env): boolean | string {
  const raw = text(env, 'TRUST_PROXY');
  if (raw === null || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  return raw;
}

/** Reads and checks the configuration; throws ConfigError naming the bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const logLevel = text(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const adminToken = text(env, 'ADMIN_TOKEN');
  if (adminToken !== null && adminToken.length < 24) {
    throw new ConfigError('ADMIN_TOKEN must be at least 24 characters long');
  }
  const limit = (name: string, fallback: number) => integer(env, name, fallback, 1, 1_000_000_000);
  return {
    port,
    host: text(env, 'HOST') ?? '127.0.0.1',
    baseUrl: baseUrl(env, port),
    issuerName: text(env, 'ISSUER_NAME') ?? 'Ticket Issuer',
    databaseUrl: text(env, 'DATABASE_URL') ?? 'sqlite:./data/issuer.db',
    redisUrl: text(env, 'REDIS_URL'),
    redisKeyPrefix: text(env, 'REDIS_KEY_PREFIX') ?? 'ticket-issuer:',
    adminToken,
    keyEncryptionKey: text(env, 'KEY_ENCRYPTION_KEY'),
    trustProxy: trustProxy(env),
    rateLimits: {
      enrollPerIp: limit('RATE_LIMIT_ENROLL_PER_IP', 30),
      enrollPerToken: limit('RATE_LIMIT_ENROLL_PER_TOKEN', 5),
      checkInPerKey: limit('RATE_LIMIT_CHECKIN_PER_KEY', 1200),
      statusPerKey: limit('RATE_LIMIT_STATUS_PER_KEY', 600),
      adminPerToken: limit('RATE_LIMIT_ADMIN_PER_TOKEN', 600),
      unknownRoutePerIp: limit('RATE_LIMIT_NOT_FOUND_PER_IP', 60),
      authFailuresPerIp: limit('RATE_LIMIT_AUTH_FAILURES_PER_IP', 30),
      windowSeconds: integer(env, 'RATE_LIMIT_WINDOW_S', 60, 1, 86_400),
    },
    logLevel,
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 8 * 1024 * 1024, 1024, 64 * 1024 * 1024),
  };
}
