/** The files of REDIS_TLS_CA, REDIS_TLS_CERT and REDIS_TLS_KEY, read once at start for the Redis client. */
import type { RedisTls } from './config-redis.ts';
import { readAuthorities, readCertificateAndKey } from './pem-files.ts';

/** What ioredis hands to `tls.connect` for Redis and the Sentinels: an authority, a client certificate. */
export interface RedisTlsOptions {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

/**
 * The TLS options of the Redis client, or null for Redis in clear. Checked before anything opens, as
 * TLS_CERT_FILE is: each file readable, PEM, the key the certificate's; an error names the setting and
 * the file, never what it holds. Without REDIS_TLS_CA the system's authorities are trusted; the name or
 * address the issuer dials must be in each server's certificate either way.
 */
export function readRedisTls(tls: RedisTls | null): RedisTlsOptions | null {
  if (tls === null) return null;
  const options: RedisTlsOptions = {};
  if (tls.caFile !== null) options.ca = readAuthorities('REDIS_TLS_CA', tls.caFile);
  if (tls.certFile !== null && tls.keyFile !== null) {
    Object.assign(options, readCertificateAndKey('REDIS_TLS_CERT', tls.certFile, 'REDIS_TLS_KEY', tls.keyFile));
  }
  return options;
}
