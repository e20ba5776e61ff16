import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { call, type RunningServer, startServer } from '../helpers/server.ts';

const ADMIN = 'startup-admin-token-0123456789ab';

/** Runs the server with `env` expecting it not to start; its exit code and stderr. */
function failedStart(env: Record<string, string>, cwd = process.cwd()): { status: number | null; stderr: string } {
  // tsx is named by its resolved URL: the child may run in a folder where `tsx` does not resolve.
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

describe('configuration: an invalid variable stops start-up with one line naming it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'issuer-config-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  const cases: [string, string][] = [
    ['DATABASE_URL', 'postgress://user@localhost/db'],
    ['DATABASE_URL', 'mysql://root@localhost/db'],
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['HOST', 'not a host!'],
    ['TRUST_PROXY', 'yes please'],
    ['TRUST_PROXY', '10.0.0.0/99'],
    ['REDIS_URL', 'localhost:6379'],
    ['REQUEST_TIMEOUT_S', '0'],
    ['REQUEST_TIMEOUT_S', 'soon'],
    ['RATE_LIMIT_CHECKIN_PER_KEY', '-5'],
    ['RATE_LIMIT_WINDOW_S', '1.5'],
    ['METRICS_TOKEN', 'short'],
    ['ADMIN_TOKEN', 'short'],
    ['LOG_LEVEL', 'loud'],
    ['BASE_URL', 'ftp://issuer'],
    ['KEY_ENCRYPTION_KEY', 'too-short'],
  ];
  for (const [name, value] of cases) {
    it(`${name}=${value}: loadConfig refuses it, naming ${name}`, () => {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (error: Error) => error.message.startsWith(name),
      );
    });
  }

  it('the real server exits 1 with one line on stderr and creates nothing', () => {
    for (const [name, value] of [
      ['DATABASE_URL', 'postgress://user:secret@localhost/db'],
      ['PORT', 'eighty'],
      ['TRUST_PROXY', 'maybe'],
    ]) {
      const { status, stderr } = failedStart({ DATABASE_URL: 'sqlite:./data/x.db', [name!]: value! }, dir);
      assert.equal(status, 1, stderr);
      const lines = stderr.trim().split('\n');
      assert.equal(lines.length, 1, stderr);
      assert.match(lines[0]!, new RegExp(`^configuration error: ${name}`));
      assert.equal(stderr.includes('secret'), false, 'a password is never printed');
    }
    assert.deepEqual(readdirSync(dir), [], 'no file or folder was created');
  });

  it('a closed database port names the URL without its password', () => {
    const { status, stderr } = failedStart({ DATABASE_URL: 'postgres://postgres:hunter2@127.0.0.1:1/issuer' });
    assert.equal(status, 1);
    assert.equal(stderr.trim().split('\n').length, 1, stderr);
    assert.match(stderr, /postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/issuer/);
    assert.equal(stderr.includes('hunter2'), false);
  });

  it('accepts addresses and CIDRs in TRUST_PROXY, and sqlite: or bare paths in DATABASE_URL', () => {
    assert.equal(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.1,::1' }).trustProxy, '10.0.0.0/8,192.168.1.1,::1');
    assert.equal(loadConfig({ DATABASE_URL: './data/a.db' }).databaseUrl, './data/a.db');
    assert.equal(loadConfig({ DATABASE_URL: 'postgresql://u@h/db' }).databaseUrl, 'postgresql://u@h/db');
  });
});

describe('start-up and shutdown of the real server', () => {
  const dirs: string[] = [];
  const servers: RunningServer[] = [];
  const children: ChildProcess[] = [];
  after(async () => {
    // Whatever a failed assertion left running is stopped here.
    await Promise.all(servers.map((s) => s.stop('SIGKILL')));
    for (const child of children) {
      try {
        process.kill(-child.pid!, 'SIGKILL'); // the whole group: npm and anything it started
      } catch {
        // already gone
      }
    }
    dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  });
  const start = async (env: Record<string, string>) => {
    const server = await startServer(env);
    servers.push(server);
    return server;
  };
  const freshDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'issuer-start-'));
    dirs.push(dir);
    return dir;
  };

  it('a deleted key-encryption key file stops the start, naming the file, and is not replaced', async () => {
    const dir = freshDir();
    const db = `sqlite:${join(dir, 'issuer.db')}`;
    const first = await start({ DATABASE_URL: db, ADMIN_TOKEN: ADMIN });
    await first.stop();
    const keyFile = join(dir, 'key-encryption.key');
    rmSync(keyFile);
    const { status, stderr } = failedStart({ DATABASE_URL: db, ADMIN_TOKEN: ADMIN });
    assert.equal(status, 1);
    assert.ok(stderr.includes(keyFile), stderr);
    assert.match(stderr, /restore/);
    assert.equal(existsSync(keyFile), false, 'no new key was written in its place');
  });

  it('the generated admin token is printed only once the server listens', async () => {
    const dir = freshDir();
    const db = `sqlite:${join(dir, 'issuer.db')}`;
    const blocker = await start({ DATABASE_URL: `sqlite:${join(dir, 'other.db')}`, ADMIN_TOKEN: ADMIN });
    const port = new URL(blocker.url).port;
    const { status, stderr } = failedStart({ DATABASE_URL: db, PORT: port });
    await blocker.stop();
    assert.equal(status, 1);
    assert.doesNotMatch(stderr, /at_[A-Za-z0-9_-]{43}/, 'no token shown for a server that never listened');
    assert.match(stderr, /reset-admin-token/);
  });

  it('npm run reset-admin-token prints a new token; the old one stops working, the new one works', async () => {
    const dir = freshDir();
    const env = { DATABASE_URL: `sqlite:${join(dir, 'issuer.db')}` };
    const server = await start(env);
    const original = /at_[A-Za-z0-9_-]{43}/.exec(server.stderr())![0];
    assert.equal((await call(`${server.url}/admin/v1/events`, { bearer: original })).status, 200);
    const reset = spawnSync('npm', ['run', '--silent', 'reset-admin-token'], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    assert.equal(reset.status, 0, reset.stderr);
    const fresh = /at_[A-Za-z0-9_-]{43}/.exec(reset.stdout)![0];
    assert.notEqual(fresh, original);
    await new Promise((resolve) => setTimeout(resolve, 5_100));
    assert.equal((await call(`${server.url}/admin/v1/events`, { bearer: original })).status, 401);
    assert.equal((await call(`${server.url}/admin/v1/events`, { bearer: fresh })).status, 200);
    await server.stop();
    assert.equal(server.stdout().includes(fresh) || server.stderr().includes(fresh), false);
  });

  it('the identity fixed at the first start is kept when BASE_URL is unset; an explicit change is logged', async () => {
    const dir = freshDir();
    const env = { DATABASE_URL: `sqlite:${join(dir, 'issuer.db')}`, ADMIN_TOKEN: ADMIN };
    const first = await start({ ...env, BASE_URL: 'http://tickets.example:8080' });
    await first.stop();
    const second = await start({ ...env, BASE_URL: '' });
    const doc = await call(`${second.url}/.well-known/ticket-issuer.json`);
    assert.equal(doc.body.iss, 'http://tickets.example:8080', 'PORT changed, identity kept');
    await second.stdoutShows(/keeps the identity http:\/\/tickets\.example:8080/);
    await second.stop();
    const third = await start({ ...env, BASE_URL: 'https://tickets.example' });
    assert.equal((await call(`${third.url}/.well-known/ticket-issuer.json`)).body.iss, 'https://tickets.example');
    await third.stdoutShows(/BASE_URL changed from http:\/\/tickets\.example:8080 to https:\/\/tickets\.example/);
    assert.match(third.stdout(), /invalid_signature/);
    await third.stop();
  });

  it('SIGTERM finishes, closes the store and exits 0, even with Redis down', async () => {
    const dir = freshDir();
    const server = await start({
      DATABASE_URL: `sqlite:${join(dir, 'issuer.db')}`,
      ADMIN_TOKEN: ADMIN,
      REDIS_URL: 'redis://127.0.0.1:1',
    });
    assert.equal((await call(`${server.url}/healthz`)).status, 200);
    const exited = once(server.process, 'exit');
    server.process.kill('SIGTERM');
    const [code] = await exited;
    assert.equal(code, 0, server.stderr());
    assert.doesNotMatch(server.stderr() + server.stdout(), /shutdown failed|\n\s+at /);
  });

  it('SIGTERM to `npm start` stops the server: no orphan keeps serving', async () => {
    const dir = freshDir();
    const child = spawn('npm', ['start'], {
      env: { ...process.env, PORT: '0', DATABASE_URL: `sqlite:${join(dir, 'issuer.db')}`, ADMIN_TOKEN: ADMIN },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    children.push(child);
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start did not listen:\n${err}`)), 30_000);
      child.stderr.on('data', () => {
        const match = /listening on (http:\/\/[\d.:]+)/.exec(err);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
    });
    assert.equal((await call(`${url}/healthz`)).status, 200);
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
    await new Promise((resolve) => setTimeout(resolve, 500));
    await assert.rejects(fetch(`${url}/healthz`), 'nothing serves on the port any more');
  });
});
