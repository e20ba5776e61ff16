import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

const SENTINELS = '10.0.0.1:26379,10.0.0.2:26379,10.0.0.3:26379';

/** Runs the real server with `env` in `cwd`, expecting it not to start. */
function failedStart(env: Record<string, string>, cwd: string): { status: number | null; stderr: string } {
  const result = spawnSync(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), join(process.cwd(), 'src/server.ts')],
    {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', ...env },
      encoding: 'utf8',
      timeout: 20_000,
    },
  );
  return { status: result.status, stderr: result.stderr };
}

const refused = (env: Record<string, string>, pattern: RegExp) =>
  assert.throws(
    () => loadConfig(env),
    (error: Error) => error instanceof ConfigError && pattern.test(error.message),
  );

describe('REDIS_SENTINELS and REDIS_SENTINEL_MASTER', () => {
  it('are read into the Sentinel addresses and the master name; unset, Redis is not found through Sentinel', () => {
    const config = loadConfig({
      REDIS_SENTINELS: ' 10.0.0.1:26379, sentinel-2.example.org:26380,[fd00::3]:26379 ',
      REDIS_SENTINEL_MASTER: 'issuer-redis',
    });
    assert.deepEqual(config.redisSentinel, {
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: 'sentinel-2.example.org', port: 26380 },
        { host: 'fd00::3', port: 26379 },
      ],
      masterName: 'issuer-redis',
    });
    assert.equal(config.redisUrl, null);
    assert.equal(loadConfig({}).redisSentinel, null);
    assert.equal(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).redisSentinel, null);
  });

  it('one without the other is refused, naming both', () => {
    refused({ REDIS_SENTINELS: SENTINELS }, /^REDIS_SENTINELS is set but REDIS_SENTINEL_MASTER is not/);
    refused({ REDIS_SENTINEL_MASTER: 'mymaster' }, /^REDIS_SENTINEL_MASTER is set but REDIS_SENTINELS is not/);
  });

  it('with REDIS_URL as well, the three are named: which way was meant would be a guess', () => {
    const url = 'redis://127.0.0.1:6379';
    const mixed: Record<string, string>[] = [
      { REDIS_URL: url, REDIS_SENTINELS: SENTINELS, REDIS_SENTINEL_MASTER: 'mymaster' },
      { REDIS_URL: url, REDIS_SENTINELS: SENTINELS },
      { REDIS_URL: url, REDIS_SENTINEL_MASTER: 'mymaster' },
    ];
    for (const env of mixed) {
      refused(env, /^REDIS_URL, REDIS_SENTINELS and REDIS_SENTINEL_MASTER: set REDIS_URL, or the two Sentinel/);
    }
  });

  for (const list of [
    'sentinel-1',
    '10.0.0.1',
    '10.0.0.1:',
    ':26379',
    '10.0.0.1:0',
    '10.0.0.1:65536',
    '10.0.0.1:26379,',
    '10.0.0.1:26379,,10.0.0.2:26379',
    '10.0.0.1:26379;10.0.0.2:26379',
    'fd00::3:26379',
    '[not-v6]:26379',
    'redis://10.0.0.1:26379',
    'bad_host!:26379',
    Array.from({ length: 33 }, (_, i) => `10.0.0.${i + 1}:26379`).join(','),
  ]) {
    it(`REDIS_SENTINELS=${list.length > 40 ? `${list.slice(0, 40)}…` : list} is refused, naming it`, () => {
      refused(
        { REDIS_SENTINELS: list, REDIS_SENTINEL_MASTER: 'mymaster' },
        /^REDIS_SENTINELS must be up to 32 host:port/,
      );
    });
  }

  it('a master name with spaces or other signs is refused', () => {
    for (const name of ['my master', 'master/1', 'x'.repeat(101)]) {
      refused({ REDIS_SENTINELS: SENTINELS, REDIS_SENTINEL_MASTER: name }, /^REDIS_SENTINEL_MASTER must be/);
    }
  });

  describe('the real server', () => {
    const dir = mkdtempSync(join(tmpdir(), 'issuer-sentinel-config-'));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('exits 1 with one line naming the variables, and creates nothing', () => {
      for (const [env, names] of [
        [
          { REDIS_URL: 'redis://127.0.0.1:6379', REDIS_SENTINELS: SENTINELS, REDIS_SENTINEL_MASTER: 'm' },
          'REDIS_URL, REDIS_SENTINELS and REDIS_SENTINEL_MASTER',
        ],
        [{ REDIS_SENTINELS: SENTINELS }, 'REDIS_SENTINELS is set but REDIS_SENTINEL_MASTER is not'],
        [{ REDIS_SENTINELS: '10.0.0.1', REDIS_SENTINEL_MASTER: 'm' }, 'REDIS_SENTINELS must be'],
      ] as const) {
        const { status, stderr } = failedStart({ DATABASE_URL: 'sqlite:./data/x.db', ...env }, dir);
        assert.equal(status, 1, stderr);
        const lines = stderr.trim().split('\n');
        assert.equal(lines.length, 1, stderr);
        assert.ok(lines[0]!.startsWith(`configuration error: ${names}`), lines[0]);
      }
      assert.deepEqual(readdirSync(dir), [], 'no file or folder was created');
    });
  });
});

describe('REDIS_PASSWORD and REDIS_SENTINEL_PASSWORD', () => {
  const PASSWORD = 'a1b2c3d4e5f6a7b8c9d0e1f2';

  it('are read where they are used: REDIS_PASSWORD with REDIS_URL or the Sentinels, REDIS_SENTINEL_PASSWORD with the Sentinels', () => {
    assert.deepEqual(loadConfig({}).redisPasswords, { redis: null, sentinel: null });
    assert.deepEqual(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_PASSWORD: PASSWORD }).redisPasswords, {
      redis: PASSWORD,
      sentinel: null,
    });
    const sentinel = { REDIS_SENTINELS: SENTINELS, REDIS_SENTINEL_MASTER: 'issuer-redis' };
    assert.deepEqual(
      loadConfig({ ...sentinel, REDIS_PASSWORD: PASSWORD, REDIS_SENTINEL_PASSWORD: `${PASSWORD}x` }).redisPasswords,
      { redis: PASSWORD, sentinel: `${PASSWORD}x` },
    );
  });

  it('a password sent nowhere, a second password beside one in REDIS_URL, or a short one is refused', () => {
    refused({ REDIS_PASSWORD: PASSWORD }, /^REDIS_PASSWORD is set but neither REDIS_URL nor REDIS_SENTINELS is/);
    refused(
      { REDIS_URL: 'redis://127.0.0.1:6379', REDIS_SENTINEL_PASSWORD: PASSWORD },
      /^REDIS_SENTINEL_PASSWORD is set but REDIS_SENTINELS is not/,
    );
    refused(
      { REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:6379`, REDIS_PASSWORD: PASSWORD },
      /^REDIS_URL holds a password and REDIS_PASSWORD is set too/,
    );
    refused({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_PASSWORD: 'short' }, /^REDIS_PASSWORD must be at least 16/);
    refused(
      { REDIS_URL: 'redis://127.0.0.1:6379', REDIS_PASSWORD: `${PASSWORD} ${PASSWORD}` },
      /^REDIS_PASSWORD must be at least 16 characters long, without spaces/,
    );
  });
});
