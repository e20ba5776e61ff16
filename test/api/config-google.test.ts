import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { DEFAULT_GOOGLE_WALLET_API_URL } from '../../src/config-google.ts';
import { configuredSecrets, secretMasker } from '../../src/http/log-masking.ts';
import { CLIENT_EMAIL, ISSUER_ID, makeKeyFile } from '../helpers/google-key.ts';

const key = makeKeyFile('https://oauth2.googleapis.com/token');
const dir = mkdtempSync(join(tmpdir(), 'issuer-google-config-'));
after(() => {
  key.remove();
  rmSync(dir, { recursive: true, force: true });
});

const refused = (env: Record<string, string>, pattern: RegExp) =>
  assert.throws(
    () => loadConfig(env),
    (error: Error) => error instanceof ConfigError && pattern.test(error.message) && !error.message.includes('PRIVATE'),
  );

/** A key file of this content, written beside the others. */
function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('GOOGLE_WALLET_ISSUER_ID, GOOGLE_WALLET_SERVICE_ACCOUNT and GOOGLE_WALLET_API_URL', () => {
  it('both set: the key file is read at start (email, key, token_uri); neither: Google Wallet is off', () => {
    const settings = loadConfig(key.env).googleWallet;
    assert.deepEqual(settings, {
      issuerId: ISSUER_ID,
      keyFile: key.path,
      clientEmail: CLIENT_EMAIL,
      privateKey: key.privateKeyPem,
      privateKeyId: 'a1b2c3d4e5f6',
      tokenUri: 'https://oauth2.googleapis.com/token',
      apiUrl: DEFAULT_GOOGLE_WALLET_API_URL,
    });
    assert.equal(loadConfig({}).googleWallet, null);
    const local = loadConfig({ ...key.env, GOOGLE_WALLET_API_URL: 'http://127.0.0.1:8443/walletobjects/v1/' });
    assert.equal(local.googleWallet?.apiUrl, 'http://127.0.0.1:8443/walletobjects/v1');
  });

  it('one without the other is refused, naming both', () => {
    refused(
      { GOOGLE_WALLET_ISSUER_ID: ISSUER_ID },
      /^GOOGLE_WALLET_ISSUER_ID is set but GOOGLE_WALLET_SERVICE_ACCOUNT is not/,
    );
    refused(
      { GOOGLE_WALLET_SERVICE_ACCOUNT: key.path },
      /^GOOGLE_WALLET_SERVICE_ACCOUNT is set but GOOGLE_WALLET_ISSUER_ID is not/,
    );
    refused({ GOOGLE_WALLET_API_URL: 'https://example.org' }, /^GOOGLE_WALLET_API_URL is set but Google Wallet is not/);
  });

  it('a missing, unreadable or foreign key file is refused, naming the setting and never quoting the key', () => {
    const cases: [string, RegExp][] = [
      [join(dir, 'absent.json'), /cannot be read \(ENOENT\)/],
      [dir, /cannot be read \(EISDIR\)/],
      [file('text.json', 'not json at all'), /is not JSON/],
      [file('user.json', JSON.stringify({ type: 'authorized_user', client_id: 'x' })), /is not a service account key/],
      [
        file('no-email.json', JSON.stringify({ type: 'service_account', private_key: key.privateKeyPem })),
        /has no client_email/,
      ],
      [
        file(
          'bad-key.json',
          JSON.stringify({ type: 'service_account', client_email: CLIENT_EMAIL, private_key: 'PRIVATE nonsense' }),
        ),
        /has a private_key that is not an RSA private key/,
      ],
    ];
    for (const [path, pattern] of cases) {
      refused(
        { ...key.env, GOOGLE_WALLET_SERVICE_ACCOUNT: path },
        new RegExp(`^GOOGLE_WALLET_SERVICE_ACCOUNT \\(.*\\) ${pattern.source}`),
      );
    }
    const noUri = makeKeyFile('ftp://oauth2.example.org/token');
    after(() => noUri.remove());
    refused(noUri.env, /^GOOGLE_WALLET_SERVICE_ACCOUNT \(.*\) has no token_uri that is an https:\/\/ URL/);
  });

  it('the issuer id is digits; the API URL is https (http only on loopback), its user info never echoed', () => {
    refused(
      { ...key.env, GOOGLE_WALLET_ISSUER_ID: 'issuer-1' },
      /^GOOGLE_WALLET_ISSUER_ID must be the issuer account's number/,
    );
    for (const bad of [
      'http://wallet.example.org/v1',
      'https://user:hunter2@wallet.example.org/v1',
      'wallet',
      'https://w.example.org/?a=1',
    ]) {
      assert.throws(
        () => loadConfig({ ...key.env, GOOGLE_WALLET_API_URL: bad }),
        (error: Error) =>
          /^GOOGLE_WALLET_API_URL must be an https:\/\/ URL/.test(error.message) && !error.message.includes('hunter2'),
      );
    }
  });

  it('the private key is one of the configured secrets that every log line masks', () => {
    const config = loadConfig(key.env);
    const mask = secretMasker(configuredSecrets(config));
    const line = JSON.stringify({ msg: 'oops', value: key.privateKeyPem });
    const masked = mask(line);
    assert.equal(masked.includes('PRIVATE KEY'), false, masked);
    assert.match(masked, /\[redacted\]/);
  });

  it('a bad key file stops the real start with exit code 1 and one line naming the setting, creating nothing', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'issuer-google-start-'));
    after(() => rmSync(cwd, { recursive: true, force: true }));
    const result = spawnSync(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), join(process.cwd(), 'src/server.ts')],
      {
        cwd,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          PORT: '0',
          GOOGLE_WALLET_ISSUER_ID: ISSUER_ID,
          GOOGLE_WALLET_SERVICE_ACCOUNT: file('user2.json', JSON.stringify({ type: 'authorized_user' })),
        },
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    assert.equal(result.status, 1, result.stderr);
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0]!, /^configuration error: GOOGLE_WALLET_SERVICE_ACCOUNT .* is not a service account key file/);
    assert.deepEqual(readdirSync(cwd), []);
  });
});
