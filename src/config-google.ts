/** Google Wallet: the issuer account's id, its service account's key file, and the Wallet REST API's address. */
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { ConfigError, type Env, text } from './config-read.ts';

export interface GoogleWalletSettings {
  /** GOOGLE_WALLET_ISSUER_ID: the issuer account's number in the Google Pay & Wallet Console. */
  issuerId: string;
  /** GOOGLE_WALLET_SERVICE_ACCOUNT: the path of the key file (kept for messages; its content is below). */
  keyFile: string;
  /** The service account's address: `iss` of the save links and of the token requests. */
  clientEmail: string;
  /** The key file's `private_key` (PEM): signs both; masked in logs like the admin token. */
  privateKey: string;
  /** The key file's `private_key_id`, named in the JWT header (`kid`) when present. */
  privateKeyId: string | null;
  /** The key file's `token_uri`: where access tokens for the REST API are asked for. */
  tokenUri: string;
  /** GOOGLE_WALLET_API_URL without a trailing slash. */
  apiUrl: string;
}

export const DEFAULT_GOOGLE_WALLET_API_URL = 'https://walletobjects.googleapis.com/walletobjects/v1';

/** http is accepted only on the machine itself (a stand-in run beside the issuer). */
function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** An https URL (http only on loopback) without user info, query or fragment; null when it is not one. */
function serviceUrl(raw: string): string | null {
  const url = URL.canParse(raw) ? new URL(raw) : null;
  const secure = url?.protocol === 'https:' || (url?.protocol === 'http:' && isLoopback(url.hostname));
  if (url === null || !secure || url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    return null;
  }
  return raw.replace(/\/+$/, '');
}

type KeyFile = Pick<GoogleWalletSettings, 'clientEmail' | 'privateKey' | 'privateKeyId' | 'tokenUri'>;

/** Reads and checks the service-account key file; the error names the setting and never carries the key. */
function readKeyFile(path: string): KeyFile {
  const refuse = (what: string) => new ConfigError(`GOOGLE_WALLET_SERVICE_ACCOUNT (${path}) ${what}`);
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw refuse(`cannot be read (${code})`);
  }
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(content) as Record<string, unknown>;
  } catch {
    throw refuse('is not JSON: it must be a service account key file downloaded from Google Cloud');
  }
  if (json === null || typeof json !== 'object' || json.type !== 'service_account') {
    throw refuse('is not a service account key file ("type": "service_account")');
  }
  const { client_email: email, private_key: key, private_key_id: keyId, token_uri: tokenUri } = json;
  if (typeof email !== 'string' || !/^[^\s@]+@[^\s@]+$/.test(email)) throw refuse('has no client_email');
  if (typeof key !== 'string') throw refuse('has no private_key');
  try {
    if (createPrivateKey(key).asymmetricKeyType !== 'rsa') throw new Error('not RSA');
  } catch {
    throw refuse('has a private_key that is not an RSA private key in PEM');
  }
  const uri = typeof tokenUri === 'string' ? serviceUrl(tokenUri) : null;
  if (uri === null) throw refuse('has no token_uri that is an https:// URL');
  return { clientEmail: email, privateKey: key, privateKeyId: typeof keyId === 'string' ? keyId : null, tokenUri: uri };
}

/**
 * GOOGLE_WALLET_ISSUER_ID and GOOGLE_WALLET_SERVICE_ACCOUNT: both (Google Wallet on) or neither (off);
 * the key file is read and checked here, at start. GOOGLE_WALLET_API_URL only matters with them.
 */
export function googleWalletSettings(env: Env): GoogleWalletSettings | null {
  const issuerId = text(env, 'GOOGLE_WALLET_ISSUER_ID');
  const keyFile = text(env, 'GOOGLE_WALLET_SERVICE_ACCOUNT');
  if (issuerId === null && keyFile === null) {
    if (text(env, 'GOOGLE_WALLET_API_URL') !== null) {
      throw new ConfigError(
        'GOOGLE_WALLET_API_URL is set but Google Wallet is not: set GOOGLE_WALLET_ISSUER_ID and GOOGLE_WALLET_SERVICE_ACCOUNT',
      );
    }
    return null;
  }
  if (keyFile === null) {
    throw new ConfigError(
      'GOOGLE_WALLET_ISSUER_ID is set but GOOGLE_WALLET_SERVICE_ACCOUNT is not: set both, or neither',
    );
  }
  if (issuerId === null) {
    throw new ConfigError(
      'GOOGLE_WALLET_SERVICE_ACCOUNT is set but GOOGLE_WALLET_ISSUER_ID is not: set both, or neither',
    );
  }
  if (!/^\d{1,30}$/.test(issuerId)) {
    throw new ConfigError(`GOOGLE_WALLET_ISSUER_ID must be the issuer account's number (digits), got "${issuerId}"`);
  }
  const rawApi = text(env, 'GOOGLE_WALLET_API_URL') ?? DEFAULT_GOOGLE_WALLET_API_URL;
  const apiUrl = serviceUrl(rawApi);
  if (apiUrl === null) {
    throw new ConfigError(
      'GOOGLE_WALLET_API_URL must be an https:// URL without user info, query or fragment (http:// only on loopback)',
    );
  }
  return { issuerId, keyFile, ...readKeyFile(keyFile), apiUrl };
}
