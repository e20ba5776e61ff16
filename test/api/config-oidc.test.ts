import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

const SSO = {
  OIDC_ISSUER_URL: 'https://login.example.org/realms/festival',
  OIDC_CLIENT_ID: 'ticket-issuer',
  OIDC_CLIENT_SECRET: 'a-client-secret-of-the-provider',
};

const refused = (env: Record<string, string>, pattern: RegExp) =>
  assert.throws(
    () => loadConfig(env),
    (error: Error) => error instanceof ConfigError && pattern.test(error.message),
  );

describe('OIDC_ISSUER_URL, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET and OIDC_DEFAULT_ROLE', () => {
  it('are read together; unset, single sign-on is off', () => {
    assert.deepEqual(loadConfig(SSO).oidc, {
      issuerUrl: SSO.OIDC_ISSUER_URL,
      clientId: SSO.OIDC_CLIENT_ID,
      clientSecret: SSO.OIDC_CLIENT_SECRET,
      defaultRole: null,
    });
    assert.equal(loadConfig({}).oidc, null);
    for (const role of ['owner', 'manager', 'supervisor', 'viewer']) {
      assert.equal(loadConfig({ ...SSO, OIDC_DEFAULT_ROLE: role }).oidc?.defaultRole, role);
    }
  });

  it('a partial set is refused, naming the three and the missing ones', () => {
    refused(
      { OIDC_ISSUER_URL: SSO.OIDC_ISSUER_URL },
      /^single sign-on needs OIDC_ISSUER_URL, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET: OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are not set$/,
    );
    refused({ ...SSO, OIDC_CLIENT_SECRET: ' ' }, /: OIDC_CLIENT_SECRET is not set$/);
    refused({ OIDC_DEFAULT_ROLE: 'viewer' }, /^OIDC_DEFAULT_ROLE is set but single sign-on is not/);
  });

  it('the issuer URL is https (http only on loopback), without query or fragment; the role is one of the four', () => {
    for (const bad of [
      'http://login.example.org',
      'login.example.org',
      'ftp://login.example.org',
      'https://login.example.org/?realm=x',
      'https://user:pw@login.example.org',
    ]) {
      refused({ ...SSO, OIDC_ISSUER_URL: bad }, /^OIDC_ISSUER_URL must be the provider's https:\/\/ issuer URL/);
    }
    for (const loopback of ['http://127.0.0.1:9000', 'http://localhost:9000/oidc', 'http://[::1]:9000']) {
      assert.equal(loadConfig({ ...SSO, OIDC_ISSUER_URL: loopback }).oidc?.issuerUrl, loopback);
    }
    refused(
      { ...SSO, OIDC_DEFAULT_ROLE: 'admin' },
      /^OIDC_DEFAULT_ROLE must be one of owner, manager, supervisor, viewer/,
    );
  });

  const dir = mkdtempSync(join(tmpdir(), 'issuer-oidc-config-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a partial set stops the real start with exit code 1 and one line, before anything is created', () => {
    const result = spawnSync(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), join(process.cwd(), 'src/server.ts')],
      {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', OIDC_CLIENT_ID: 'ticket-issuer' },
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    assert.equal(result.status, 1);
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0]!, /OIDC_ISSUER_URL and OIDC_CLIENT_SECRET are not set/);
    assert.deepEqual(readdirSync(dir), [], 'nothing was created');
  });

  /** Starts the real server in a directory of its own with `env`; answers its log once it listens. */
  const startLog = (name: string, env: Record<string, string>) =>
    new Promise<string>((resolve, reject) => {
      const cwd = join(dir, name);
      mkdirSync(cwd);
      const child = spawn(
        process.execPath,
        ['--import', import.meta.resolve('tsx'), join(process.cwd(), 'src/server.ts')],
        {
          cwd,
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', HOST: '127.0.0.1', ...env },
        },
      );
      let log = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`no start within 20 s: ${log}`));
      }, 20_000);
      const read = (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('issuer listening')) {
          clearTimeout(timer);
          // 'close', not 'exit': the log lines still in the pipes arrive before it (the warning and the
          // stderr line that matched above travel on two pipes).
          child.once('close', () => resolve(log));
          child.kill('SIGTERM');
        }
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      child.once('error', reject);
    });

  it('OIDC_DEFAULT_ROLE owner or manager is allowed, with a warning at start; a lesser role starts quietly', async () => {
    const loopback = { ...SSO, OIDC_ISSUER_URL: 'http://127.0.0.1:9/oidc' };
    const warnings = (log: string) =>
      log
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; msg: string })
        .filter((entry) => entry.level === 40 && entry.msg.startsWith('OIDC_DEFAULT_ROLE'));
    const owner = warnings(await startLog('owner', { ...loopback, OIDC_DEFAULT_ROLE: 'owner' }));
    assert.equal(owner.length, 1);
    assert.match(
      owner[0]!.msg,
      /anyone with a verified email address at http:\/\/127\.0\.0\.1:9\/oidc .*becomes an owner/,
    );
    const manager = warnings(await startLog('manager', { ...loopback, OIDC_DEFAULT_ROLE: 'manager' }));
    assert.match(manager[0]!.msg, /becomes a manager/);
    assert.deepEqual(warnings(await startLog('viewer', { ...loopback, OIDC_DEFAULT_ROLE: 'viewer' })), []);
  });
});
