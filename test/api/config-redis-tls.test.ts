import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { Authority } from '../ha/certificates.ts';

const SENTINELS = { REDIS_SENTINELS: '10.0.0.1:26379,10.0.0.2:26379', REDIS_SENTINEL_MASTER: 'issuer-redis' };
const TLS_URL = { REDIS_URL: 'rediss://10.0.0.1:6379' };

const refused = (env: Record<string, string>, pattern: RegExp) =>
  assert.throws(
    () => loadConfig(env),
    (error: Error) => error instanceof ConfigError && pattern.test(error.message),
  );

describe('REDIS_TLS_CA, REDIS_TLS_CERT, REDIS_TLS_KEY and REDIS_SENTINEL_TLS', () => {
  it('a rediss:// REDIS_URL, or REDIS_SENTINEL_TLS=true beside the Sentinels, is TLS; the files are kept as paths', () => {
    assert.equal(loadConfig({}).redisTls, null);
    assert.equal(loadConfig({ REDIS_URL: 'redis://10.0.0.1:6379' }).redisTls, null);
    assert.equal(loadConfig(SENTINELS).redisTls, null);
    assert.equal(loadConfig({ ...SENTINELS, REDIS_SENTINEL_TLS: 'false' }).redisTls, null);
    assert.deepEqual(loadConfig(TLS_URL).redisTls, { caFile: null, certFile: null, keyFile: null, sentinels: false });
    assert.deepEqual(loadConfig({ REDIS_URL: 'REDISS://10.0.0.1:6379' }).redisTls?.sentinels, false);
    const files = { REDIS_TLS_CA: '/etc/redis-ca.pem', REDIS_TLS_CERT: '/etc/c.pem', REDIS_TLS_KEY: '/etc/c.key' };
    assert.deepEqual(loadConfig({ ...SENTINELS, REDIS_SENTINEL_TLS: 'true', ...files }).redisTls, {
      caFile: '/etc/redis-ca.pem',
      certFile: '/etc/c.pem',
      keyFile: '/etc/c.key',
      sentinels: true,
    });
    assert.equal(loadConfig({ ...SENTINELS, REDIS_SENTINEL_TLS: '1' }).redisTls?.sentinels, true);
  });

  it('REDIS_SENTINEL_TLS must be true or false, and only beside REDIS_SENTINELS', () => {
    refused({ ...SENTINELS, REDIS_SENTINEL_TLS: 'yes' }, /^REDIS_SENTINEL_TLS must be true or false, got "yes"/);
    refused({ REDIS_SENTINEL_TLS: 'true' }, /^REDIS_SENTINEL_TLS is set but REDIS_SENTINELS is not/);
    refused({ ...TLS_URL, REDIS_SENTINEL_TLS: 'true' }, /^REDIS_SENTINEL_TLS is set but REDIS_SENTINELS is not/);
  });

  it('the certificate and its key: both, or neither', () => {
    refused({ ...TLS_URL, REDIS_TLS_CERT: '/etc/c.pem' }, /^REDIS_TLS_CERT is set but REDIS_TLS_KEY is not/);
    refused({ ...TLS_URL, REDIS_TLS_KEY: '/etc/c.key' }, /^REDIS_TLS_KEY is set but REDIS_TLS_CERT is not/);
  });

  it('a file for a Redis reached in clear is refused, naming it: it would be used nowhere', () => {
    refused({ REDIS_TLS_CA: '/etc/ca.pem' }, /^REDIS_TLS_CA is set but Redis is not reached over TLS/);
    refused(
      { REDIS_URL: 'redis://10.0.0.1:6379', REDIS_TLS_CA: '/etc/ca.pem' },
      /^REDIS_TLS_CA is set but Redis is not reached over TLS: write REDIS_URL as rediss:\/\//,
    );
    refused(
      { ...SENTINELS, REDIS_TLS_CA: '/etc/ca.pem', REDIS_TLS_CERT: '/etc/c.pem', REDIS_TLS_KEY: '/etc/c.key' },
      /^REDIS_TLS_CA, REDIS_TLS_CERT, REDIS_TLS_KEY are set but Redis is not reached over TLS/,
    );
  });

  describe('the real server: a file missing, unreadable, not PEM, or not the certificate’s key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'issuer-redis-tls-config-'));
    const work = join(dir, 'work');
    after(() => rmSync(dir, { recursive: true, force: true }));
    const authority = Authority.make(dir, 'redis');
    const client = authority.issue('issuer', ['127.0.0.1']);
    const other = authority.issue('other', ['127.0.0.1']);
    const garbage = join(dir, 'garbage.pem');
    writeFileSync(garbage, 'no PEM here');

    /** Runs the real server with `env`, expecting it not to start: its exit code and stderr. */
    function failedStart(env: Record<string, string>): { status: number | null; stderr: string } {
      rmSync(work, { recursive: true, force: true });
      mkdirSync(work);
      const result = spawnSync(
        process.execPath,
        ['--import', import.meta.resolve('tsx'), join(process.cwd(), 'src/server.ts')],
        {
          cwd: work,
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', ...env },
          encoding: 'utf8',
          timeout: 20_000,
        },
      );
      return { status: result.status, stderr: result.stderr };
    }

    it('stops the start with one line naming the setting and the file, printing none of it, and creates nothing', () => {
      const base = {
        DATABASE_URL: 'sqlite:./data/x.db',
        REDIS_URL: 'rediss://127.0.0.1:6399',
        REDIS_TLS_CA: authority.ca,
        REDIS_TLS_CERT: client.cert,
        REDIS_TLS_KEY: client.key,
      };
      const cases: [Record<string, string>, RegExp][] = [
        [{ REDIS_TLS_CA: join(dir, 'nothing.pem') }, /^REDIS_TLS_CA \S+nothing\.pem cannot be read \(ENOENT\)$/],
        [{ REDIS_TLS_CA: garbage }, /^REDIS_TLS_CA \S+garbage\.pem is not a PEM certificate/],
        [{ REDIS_TLS_CA: client.key }, /^REDIS_TLS_CA \S+issuer\.key is not a PEM certificate/],
        [{ REDIS_TLS_CERT: dir }, /^REDIS_TLS_CERT \S+ cannot be read \(EISDIR\)$/],
        [{ REDIS_TLS_CERT: garbage }, /^REDIS_TLS_CERT \S+garbage\.pem is not a PEM certificate$/],
        [{ REDIS_TLS_KEY: join(dir, 'none.key') }, /^REDIS_TLS_KEY \S+none\.key cannot be read \(ENOENT\)$/],
        [{ REDIS_TLS_KEY: garbage }, /^REDIS_TLS_KEY \S+garbage\.pem is not a PEM private key/],
        [{ REDIS_TLS_KEY: other.key }, /^REDIS_TLS_KEY \S+other\.key is not the private key of REDIS_TLS_CERT /],
        [
          { REDIS_URL: '', ...SENTINELS, REDIS_SENTINEL_TLS: 'true', REDIS_TLS_CA: garbage },
          /^REDIS_TLS_CA \S+garbage\.pem is not a PEM certificate/,
        ],
      ];
      const keyLines = [client.key, other.key].map((file) => readFileSync(file, 'utf8').split('\n')[1]!);
      for (const [env, pattern] of cases) {
        const { status, stderr } = failedStart({ ...base, ...env });
        assert.equal(status, 1, stderr);
        const lines = stderr.trim().split('\n');
        assert.equal(lines.length, 1, stderr);
        assert.ok(lines[0]!.startsWith('configuration error: '), lines[0]);
        assert.match(lines[0]!.slice('configuration error: '.length), pattern);
        for (const line of keyLines) assert.ok(!stderr.includes(line), 'no key material');
        assert.deepEqual(readdirSync(work), [], 'no file or folder was created');
      }
    });
  });
});
