/** A service-account key file as Google Cloud hands one out, made for a test with a fresh RSA key. */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ISSUER_ID = '3388000000022141777';
export const CLIENT_EMAIL = 'wallet@festival-tickets.iam.gserviceaccount.com';

export interface TestKeyFile {
  path: string;
  dir: string;
  privateKeyPem: string;
  publicKey: KeyObject;
  /** The environment that turns Google Wallet on with this key file. */
  env: Record<string, string>;
  remove(): void;
}

/** Writes a key file whose `token_uri` is `tokenUri`; `fields` replaces or adds any of its fields. */
export function makeKeyFile(tokenUri: string, fields: Record<string, unknown> = {}): TestKeyFile {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const dir = mkdtempSync(join(tmpdir(), 'issuer-google-key-'));
  const path = join(dir, 'service-account.json');
  const content = {
    type: 'service_account',
    project_id: 'festival-tickets',
    private_key_id: 'a1b2c3d4e5f6',
    private_key: privateKeyPem,
    client_email: CLIENT_EMAIL,
    client_id: '102938475610293847561',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: tokenUri,
    auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
    universe_domain: 'googleapis.com',
    ...fields,
  };
  writeFileSync(path, JSON.stringify(content, null, 2), { mode: 0o600 });
  return {
    path,
    dir,
    privateKeyPem,
    publicKey,
    env: { GOOGLE_WALLET_ISSUER_ID: ISSUER_ID, GOOGLE_WALLET_SERVICE_ACCOUNT: path },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
