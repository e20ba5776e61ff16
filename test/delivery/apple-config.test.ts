import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { configuredSecrets, secretMasker } from '../../src/http/log-masking.ts';
import { type AppleFiles, makeAppleFiles } from '../helpers/apple-certs.ts';

let files: AppleFiles;
before(() => {
  files = makeAppleFiles();
});
after(() => files.remove());

/** The configuration error a start would report for these settings (null when it loads). */
function refusal(extra: Record<string, string>): string | null {
  try {
    loadConfig({ ...files.env, ...extra });
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('Apple Wallet settings (APPLE_*, APNS_*), checked at start', () => {
  it('all five pass settings and the APNs pair load; none leaves Apple Wallet off', () => {
    const config = loadConfig(files.env);
    assert.equal(config.apple?.passTypeId, 'pass.test.tickets');
    assert.equal(config.apple?.teamId, 'TEAM123456');
    assert.equal(config.apple?.apns?.keyId, 'KEY1234567');
    assert.equal(config.apple?.apns?.url, 'https://api.push.apple.com');
    assert.equal(loadConfig({}).apple, null);
    const withoutPush = { ...files.env, APNS_KEY: '', APNS_KEY_ID: '' };
    assert.equal(loadConfig(withoutPush).apple?.apns, null);
  });

  it('a group set in part names what is missing', () => {
    assert.match(refusal({ APPLE_WWDR_CERT: '' })!, /APPLE_WWDR_CERT is not set/);
    assert.match(refusal({ APNS_KEY_ID: '' })!, /APNS_KEY_ID is not set/);
    const pushOnly = { APNS_KEY: files.apnsKey, APNS_KEY_ID: 'KEY1234567' };
    assert.match(
      String(
        refusal({
          ...pushOnly,
          APPLE_PASS_TYPE_ID: '',
          APPLE_TEAM_ID: '',
          APPLE_PASS_CERT: '',
          APPLE_PASS_KEY: '',
          APPLE_WWDR_CERT: '',
        }),
      ),
      /APNS_KEY is set but Apple Wallet is not/,
    );
  });

  it('a missing file, or a file of the wrong kind, is refused naming the setting', () => {
    assert.match(
      refusal({ APPLE_PASS_CERT: join(files.dir, 'nope.pem') })!,
      /^APPLE_PASS_CERT .* cannot be read \(ENOENT\)$/,
    );
    assert.match(refusal({ APPLE_PASS_CERT: files.passKey })!, /^APPLE_PASS_CERT .* is not a PEM certificate$/);
    assert.match(refusal({ APPLE_PASS_KEY: files.passCert })!, /^APPLE_PASS_KEY .* is not a PEM private key$/);
    assert.match(refusal({ APPLE_PASS_KEY: files.apnsKey })!, /^APPLE_PASS_KEY .* is not an RSA key$/);
    assert.match(
      refusal({ APPLE_WWDR_CERT: files.passCert })!,
      /^APPLE_WWDR_CERT .* is not the Apple WWDR certificate/,
    );
    assert.match(refusal({ APNS_KEY: files.passKey })!, /^APNS_KEY .* is not an APNs auth key/);
    assert.match(refusal({ APNS_KEY: files.wwdr })!, /^APNS_KEY .* is not a PEM private key$/);
    assert.match(refusal({ APPLE_PASS_TYPE_ID: 'pass.other.id' })!, /was made for pass\.test\.tickets/);
    assert.match(refusal({ APPLE_TEAM_ID: 'team' })!, /^APPLE_TEAM_ID must be/);
    assert.match(refusal({ APNS_URL: 'http://api.push.apple.com' })!, /^APNS_URL must be an https/);
  });

  it('a key that belongs to another certificate is refused', () => {
    const other = join(files.dir, 'other-key.pem');
    assert.equal(spawnSync('openssl', ['genpkey', '-algorithm', 'RSA', '-out', other]).status, 0);
    assert.match(refusal({ APPLE_PASS_KEY: other })!, /is not the private key of APPLE_PASS_CERT/);
  });

  it('an encrypted key needs APPLE_PASS_KEY_PASSPHRASE; with it, it loads', () => {
    assert.match(refusal({ APPLE_PASS_KEY: files.encryptedPassKey })!, /set APPLE_PASS_KEY_PASSPHRASE/);
    assert.match(
      refusal({ APPLE_PASS_KEY: files.encryptedPassKey, APPLE_PASS_KEY_PASSPHRASE: 'wrong' })!,
      /APPLE_PASS_KEY_PASSPHRASE is wrong/,
    );
    assert.equal(
      refusal({ APPLE_PASS_KEY: files.encryptedPassKey, APPLE_PASS_KEY_PASSPHRASE: files.passphrase }),
      null,
    );
  });

  it('the keys and the passphrase are masked in any log line, and no message carries a key', () => {
    const config = loadConfig({
      ...files.env,
      APPLE_PASS_KEY: files.encryptedPassKey,
      APPLE_PASS_KEY_PASSPHRASE: files.passphrase,
    });
    const mask = secretMasker(configuredSecrets(config));
    const line = JSON.stringify({ msg: `${config.apple!.signerKey} ${files.passphrase}` });
    assert.equal(mask(line), JSON.stringify({ msg: '[redacted] [redacted]' }));
    const apnsPem = config.apple!.apns!.key.export({ type: 'pkcs8', format: 'pem' }).toString();
    assert.equal(mask(JSON.stringify({ msg: apnsPem })), JSON.stringify({ msg: '[redacted]' }));
  });

  it('the real start refuses a bad certificate path with one line naming the setting', () => {
    const db = join(files.dir, 'issuer.db');
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        DATABASE_URL: `sqlite:${db}`,
        ADMIN_TOKEN: 'a'.repeat(32),
        ...files.env,
        APPLE_WWDR_CERT: join(files.dir, 'missing-wwdr.pem'),
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(result.status, 1);
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0]!, /^configuration error: APPLE_WWDR_CERT .*missing-wwdr\.pem cannot be read \(ENOENT\)$/);
  });
});
