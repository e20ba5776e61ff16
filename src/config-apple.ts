/**
 * Apple Wallet: the pass certificate Apple issued for a Pass Type ID, its key, Apple's WWDR intermediate,
 * and the APNs auth key that tells devices a pass changed. The files are read and checked here, at start:
 * a wrong path or a file of the wrong kind stops the start with one line naming the setting, never later
 * at a holder's first download. Contents never appear in a message.
 */
import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError, type Env, text } from './config-read.ts';

export interface ApnsSettings {
  /** APNS_KEY: the .p8 auth key (PKCS #8 PEM, P-256), as read at start. */
  key: KeyObject;
  /** APNS_KEY_ID: the key's 10-character id in the developer account. */
  keyId: string;
  /** APNS_URL: Apple's production address by default. */
  url: string;
  /** APNS_RETRY_SCHEDULE_S: delays in seconds after each failed attempt of a push; then it fails. */
  retrySchedule: number[];
}

export interface AppleSettings {
  /** APPLE_PASS_TYPE_ID: `pass.…`, the Pass Type ID the certificate was made for. */
  passTypeId: string;
  /** APPLE_TEAM_ID: the developer account's team id. */
  teamId: string;
  /** APPLE_PASS_CERT (PEM), as read at start. */
  signerCert: string;
  /** APPLE_PASS_KEY, decrypted with APPLE_PASS_KEY_PASSPHRASE when it has one: an RSA key, PKCS #1 PEM. */
  signerKey: string;
  /** APPLE_WWDR_CERT (PEM): Apple's Worldwide Developer Relations intermediate, included in each signature. */
  wwdr: string;
  /** APPLE_PASS_KEY_PASSPHRASE: not needed after start, kept only so that the logs mask it. */
  keyPassphrase: string | null;
  /** Pushes to devices when a pass changes; null: passes are served, but devices learn of changes only when they ask. */
  apns: ApnsSettings | null;
}

const PASS_NAMES = ['APPLE_PASS_TYPE_ID', 'APPLE_TEAM_ID', 'APPLE_PASS_CERT', 'APPLE_PASS_KEY', 'APPLE_WWDR_CERT'];
const APNS_NAMES = ['APNS_KEY', 'APNS_KEY_ID'];
export const DEFAULT_APNS_URL = 'https://api.push.apple.com';
/** About 21 hours of retries: a device that comes back the next day still hears of the change. */
const DEFAULT_RETRY_SCHEDULE = '10,60,300,1800,7200,21600,43200';

/** APNS_RETRY_SCHEDULE_S: up to 50 delays in seconds (1 to 604800) separated by commas. */
function retrySchedule(env: Env): number[] {
  const raw = text(env, 'APNS_RETRY_SCHEDULE_S') ?? DEFAULT_RETRY_SCHEDULE;
  const delays = raw.split(',').map((part) => part.trim());
  if (delays.length > 50 || delays.some((d) => !/^\d{1,6}$/.test(d) || Number(d) < 1 || Number(d) > 604_800)) {
    throw new ConfigError(
      `APNS_RETRY_SCHEDULE_S must be up to 50 delays in seconds (1 to 604800) separated by commas, got "${raw}"`,
    );
  }
  return delays.map(Number);
}

/** All of `names` or none; null when none. */
function group(env: Env, names: string[], what: string): (string | null)[] | null {
  const values = names.map((name) => text(env, name));
  const missing = names.filter((_, i) => values[i] === null);
  if (missing.length === names.length) return null;
  if (missing.length > 0) {
    throw new ConfigError(
      `${what} needs ${names.join(', ')}: ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set`,
    );
  }
  return values;
}

function readSetting(name: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new ConfigError(`${name} ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

function certificate(name: string, path: string): { pem: string; cert: X509Certificate } {
  const bytes = readSetting(name, path);
  const pem = bytes.toString('utf8');
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new ConfigError(`${name} ${path} is not a PEM certificate`);
  try {
    return { pem, cert: new X509Certificate(bytes) };
  } catch {
    throw new ConfigError(`${name} ${path} is not a PEM certificate`);
  }
}

function privateKey(name: string, path: string, passphrase: string | null): KeyObject {
  const pem = readSetting(name, path).toString('utf8');
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem))
    throw new ConfigError(`${name} ${path} is not a PEM private key`);
  try {
    return createPrivateKey(passphrase === null ? { key: pem } : { key: pem, passphrase });
  } catch {
    const hint = /ENCRYPTED/.test(pem)
      ? passphrase === null
        ? ' (it is encrypted: set APPLE_PASS_KEY_PASSPHRASE)'
        : ' (or APPLE_PASS_KEY_PASSPHRASE is wrong)'
      : '';
    throw new ConfigError(`${name} ${path} is not a usable PEM private key${hint}`);
  }
}

/** The pass certificate's UID (the Pass Type ID Apple wrote in it), when it has one. */
function uidOf(cert: X509Certificate): string | null {
  return /(?:^|\n)UID=([^\n]+)/.exec(cert.subject)?.[1]?.trim() ?? null;
}

function apnsSettings(env: Env): ApnsSettings | null {
  const values = group(env, APNS_NAMES, 'Apple Wallet pushes');
  const rawUrl = text(env, 'APNS_URL');
  if (values === null) {
    if (rawUrl !== null) throw new ConfigError(`APNS_URL is set but APNS_KEY and APNS_KEY_ID are not`);
    return null;
  }
  const [keyPath, keyId] = values as [string, string];
  if (!/^[A-Z0-9]{10}$/.test(keyId)) throw new ConfigError('APNS_KEY_ID must be the 10-character key id Apple shows');
  const key = privateKey('APNS_KEY', keyPath, null);
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new ConfigError(`APNS_KEY ${keyPath} is not an APNs auth key (a P-256 .p8 key)`);
  }
  const url = rawUrl ?? DEFAULT_APNS_URL;
  if (!URL.canParse(url) || new URL(url).protocol !== 'https:' || new URL(url).pathname !== '/') {
    throw new ConfigError(`APNS_URL must be an https:// address without a path, got "${url}"`);
  }
  return { key, keyId, url: url.replace(/\/+$/, ''), retrySchedule: retrySchedule(env) };
}

/**
 * APPLE_PASS_TYPE_ID, APPLE_TEAM_ID, APPLE_PASS_CERT, APPLE_PASS_KEY and APPLE_WWDR_CERT: all or none
 * (Apple Wallet off); APPLE_PASS_KEY_PASSPHRASE for an encrypted key; APNS_KEY and APNS_KEY_ID (and
 * APNS_URL) only with them, both or neither.
 */
export function appleSettings(env: Env): AppleSettings | null {
  const values = group(env, PASS_NAMES, 'Apple Wallet');
  const apns = apnsSettings(env);
  if (values === null) {
    if (apns !== null) throw new ConfigError('APNS_KEY is set but Apple Wallet is not: set ' + PASS_NAMES.join(', '));
    if (text(env, 'APPLE_PASS_KEY_PASSPHRASE') !== null) {
      throw new ConfigError('APPLE_PASS_KEY_PASSPHRASE is set but Apple Wallet is not: set ' + PASS_NAMES.join(', '));
    }
    return null;
  }
  const [passTypeId, teamId, certPath, keyPath, wwdrPath] = values as [string, string, string, string, string];
  if (!/^pass\.[A-Za-z0-9.-]+$/.test(passTypeId)) {
    throw new ConfigError(
      `APPLE_PASS_TYPE_ID must be a Pass Type ID such as pass.org.example.tickets, got "${passTypeId}"`,
    );
  }
  if (!/^[A-Z0-9]{10}$/.test(teamId))
    throw new ConfigError('APPLE_TEAM_ID must be the 10-character team id Apple shows');
  const signer = certificate('APPLE_PASS_CERT', certPath);
  const key = privateKey('APPLE_PASS_KEY', keyPath, text(env, 'APPLE_PASS_KEY_PASSPHRASE'));
  if (key.asymmetricKeyType !== 'rsa') throw new ConfigError(`APPLE_PASS_KEY ${keyPath} is not an RSA key`);
  if (!signer.cert.checkPrivateKey(key)) {
    throw new ConfigError(`APPLE_PASS_KEY ${keyPath} is not the private key of APPLE_PASS_CERT ${certPath}`);
  }
  const uid = uidOf(signer.cert);
  if (uid !== null && uid !== passTypeId) {
    throw new ConfigError(`APPLE_PASS_CERT ${certPath} was made for ${uid}, not APPLE_PASS_TYPE_ID ${passTypeId}`);
  }
  const wwdr = certificate('APPLE_WWDR_CERT', wwdrPath);
  if (!wwdr.cert.ca || !signer.cert.checkIssued(wwdr.cert)) {
    throw new ConfigError(
      `APPLE_WWDR_CERT ${wwdrPath} is not the Apple WWDR certificate that issued APPLE_PASS_CERT ${certPath}`,
    );
  }
  const signerKey = key.export({ type: 'pkcs1', format: 'pem' }).toString();
  const keyPassphrase = text(env, 'APPLE_PASS_KEY_PASSPHRASE');
  return { passTypeId, teamId, signerCert: signer.pem, signerKey, wwdr: wwdr.pem, keyPassphrase, apns };
}

/** The secrets these settings hold, for the log masking: the keys as held in memory, and the passphrase. */
export function appleSecrets(apple: AppleSettings | null): (string | null)[] {
  if (apple === null) return [];
  const apnsKey = apple.apns?.key.export({ type: 'pkcs8', format: 'pem' }).toString() ?? null;
  return [apple.signerKey, apple.keyPassphrase, apnsKey];
}
