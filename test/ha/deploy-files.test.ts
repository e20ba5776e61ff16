import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { itUnless } from '../helpers/services.ts';
import { parseServiceUnit } from './systemd-unit.ts';
import { DEPLOY, placeholders, render } from './templates.ts';

const hasSystemdAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;
if (!hasSystemdAnalyze)
  process.stderr.write('\n!!! no systemd-analyze (apt-get install systemd): unit file check SKIPPED\n\n');
const itWithSystemd = itUnless(hasSystemdAnalyze ? undefined : 'no systemd-analyze');

/** Every file under deploy/, as a path relative to it. */
function deployFiles(dir = DEPLOY): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? deployFiles(path) : [relative(DEPLOY, path)];
  });
}

/** The unit filled in with the guide's values (docs/deploy.md); `values` replace some. */
function unitText(values: Partial<Record<string, string>> = {}): string {
  return render(readFileSync(join(DEPLOY, 'systemd/ticket-issuer.service'), 'utf8'), {
    ISSUER_DIR: join(import.meta.dirname, '..', '..'),
    ISSUER_USER: 'ticket-issuer',
    ISSUER_GROUP: 'ticket-issuer',
    ISSUER_ENV_FILE: '/etc/ticket-issuer/issuer.env',
    ISSUER_STATE_DIR: '/var/lib/ticket-issuer',
    NODE_BIN: process.execPath,
    ...values,
  } as Record<string, string>);
}

/** What `systemd-analyze verify` says about the unit in `text` (only its lines about that file). */
function verify(text: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'issuer-unit-'));
  try {
    const file = join(dir, 'ticket-issuer.service');
    writeFileSync(file, text);
    const result = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
    return `${result.stdout}${result.stderr}`.split('\n').filter((line) => line.includes(file));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('deploy/: every file is a template a test fills in and starts', () => {
  it('each file under deploy/ is named by test/ha, and each template names only placeholders in capitals', () => {
    const sources = readdirSync(import.meta.dirname)
      .filter((name) => name.endsWith('.ts'))
      .map((name) => readFileSync(join(import.meta.dirname, name), 'utf8'))
      .join('\n');
    for (const file of deployFiles()) {
      // Named whole ('haproxy/haproxy.cfg'), or as every file of its directory (`haproxy/errors/${page}`).
      const named = sources.includes(`'${file}'`) || sources.includes(`\`${dirname(file)}/\${`);
      assert.ok(named, `deploy/${file} is used by no test`);
      const text = readFileSync(join(DEPLOY, file), 'utf8');
      assert.doesNotMatch(
        text.replace(/\$\{[A-Z][A-Z0-9_]*\}/g, ''),
        /\$\{/,
        `deploy/${file}: a placeholder not in capitals`,
      );
    }
  });

  it('filling a template in is strict: a value missing or one it does not name is an error', () => {
    assert.deepEqual(placeholders('a ${ONE} b ${TWO} ${ONE}'), ['ONE', 'TWO']);
    assert.equal(render('a ${ONE}', { ONE: '1' }), 'a 1');
    assert.throws(() => render('a ${ONE} ${TWO}', { ONE: '1' }), /no value for TWO/);
    assert.throws(() => render('a ${ONE}', { ONE: '1', THREE: '3' }), /names no THREE/);
  });
});

describe('deploy/systemd/ticket-issuer.service', () => {
  itWithSystemd('systemd-analyze verify finds nothing to say about it (and does about a unit with a mistake)', () => {
    assert.deepEqual(verify(unitText()), []);
    assert.notDeepEqual(verify(unitText().replace('NoNewPrivileges=yes', 'NoNewPrivileges=maybe')), []);
    assert.notDeepEqual(verify(`${unitText()}\n[Service]\nProtectSistem=strict\n`), []);
  });

  it('restarts on failure, runs as its own user without privileges, and may write only its state directory', () => {
    const unit = parseServiceUnit(unitText());
    const one = (key: string) => unit.settings.get(key)?.join(' ');
    assert.equal(unit.user, 'ticket-issuer');
    assert.equal(one('Restart'), 'on-failure');
    assert.equal(one('NoNewPrivileges'), 'yes');
    assert.equal(one('ProtectSystem'), 'strict');
    assert.equal(one('ProtectHome'), 'yes');
    assert.equal(one('PrivateTmp'), 'yes');
    assert.equal(one('PrivateDevices'), 'yes');
    assert.equal(one('CapabilityBoundingSet'), '');
    assert.equal(one('ReadWritePaths'), '/var/lib/ticket-issuer');
    assert.equal(unit.workingDirectory, '/var/lib/ticket-issuer');
    assert.deepEqual(unit.environmentFiles, ['/etc/ticket-issuer/issuer.env']);
    assert.equal(unit.environment.MALLOC_ARENA_MAX, '2', 'two malloc arenas, as npm start sets');
    assert.deepEqual(unit.execStart, [
      process.execPath,
      '--max-semi-space-size=8',
      join(import.meta.dirname, '..', '..', 'scripts', 'start.js'),
    ]);
  });
});

/** The lines of deploy/`file` that say something (comments and blank lines left out), trimmed. */
function settings(file: string): string[] {
  return readFileSync(join(DEPLOY, file), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

const PLACEHOLDER = /^\$\{[A-Z][A-Z0-9_]*\}$/;

describe('deploy/: the cluster’s own doors, as the files say them', () => {
  it('Redis and Sentinel: protected mode on, a password asked of every client and given to the master; no password written in a file', () => {
    const redis = settings('redis/redis.conf');
    const sentinel = settings('redis/sentinel.conf');
    for (const lines of [redis, sentinel]) {
      assert.ok(lines.includes('protected-mode yes'));
      assert.ok(!lines.some((line) => /^protected-mode\s+no/.test(line)));
      assert.ok(lines.some((line) => /^requirepass \$\{/.test(line)));
    }
    assert.ok(redis.includes('masterauth ${REDIS_PASSWORD}'), 'a replica gives the master its password');
    assert.ok(redis.includes('requirepass ${REDIS_PASSWORD}'));
    assert.ok(sentinel.includes('requirepass ${REDIS_SENTINEL_PASSWORD}'));
    assert.ok(sentinel.includes('sentinel sentinel-pass ${REDIS_SENTINEL_PASSWORD}'), 'Sentinels to each other');
    assert.ok(sentinel.includes('sentinel auth-pass ${REDIS_MASTER_NAME} ${REDIS_PASSWORD}'), 'Sentinels to Redis');
    for (const file of deployFiles()) {
      for (const line of settings(file)) {
        const secret = /^(?:requirepass|masterauth|sentinel auth-pass \S+|sentinel sentinel-pass)\s+(\S+)$/.exec(line);
        const variable = /^[A-Z_]*(?:PASSWORD|TOKEN|_KEY)=(.*)$/.exec(line);
        const value = secret?.[1] ?? variable?.[1];
        if (value !== undefined) assert.match(value, PLACEHOLDER, `deploy/${file}: "${line}" writes a secret down`);
      }
    }
  });

  it('Redis and Sentinel: TLS only (no port in clear), a certificate asked of every client, TLS between themselves; the issuer speaks TLS to them', () => {
    for (const [file, port] of [
      ['redis/redis.conf', '${REDIS_PORT}'],
      ['redis/sentinel.conf', '${SENTINEL_PORT}'],
    ] as const) {
      const lines = settings(file);
      assert.deepEqual(
        lines.filter((line) => /^(?:tls-)?port\s/.test(line)),
        ['port 0', `tls-port ${port}`],
        `deploy/${file}: one port, TLS`,
      );
      for (const line of [
        'tls-cert-file ${REDIS_TLS_CERT_FILE}',
        'tls-key-file ${REDIS_TLS_KEY_FILE}',
        'tls-ca-cert-file ${REDIS_TLS_CA_FILE}',
        'tls-auth-clients yes',
        'tls-replication yes',
      ]) {
        assert.ok(lines.includes(line), `deploy/${file}: ${line}`);
      }
    }
    const env = settings('systemd/issuer.env');
    for (const line of [
      'REDIS_SENTINEL_TLS=true',
      'REDIS_TLS_CA=${REDIS_CA_FILE}',
      'REDIS_TLS_CERT=${REDIS_CLIENT_CERT_FILE}',
      'REDIS_TLS_KEY=${REDIS_CLIENT_KEY_FILE}',
    ]) {
      assert.ok(env.includes(line), `issuer.env: ${line}`);
    }
  });

  it('etcd: TLS only, for clients and members alike, and only a certificate its authority signed gets in', () => {
    const etcd = settings('etcd/etcd.yml');
    const urls = etcd.filter((line) => /-urls:/.test(line));
    assert.equal(urls.length, 4);
    for (const line of urls) assert.match(line, /: https:\/\//, line);
    const text = readFileSync(join(DEPLOY, 'etcd/etcd.yml'), 'utf8');
    for (const section of ['client-transport-security', 'peer-transport-security']) {
      const block = new RegExp(`^${section}:\\n((?:  .*\\n)+)`, 'm').exec(text)?.[1] ?? '';
      assert.match(block, /^ {2}client-cert-auth: true$/m, `${section} asks for a certificate`);
      assert.match(block, /^ {2}trusted-ca-file: \$\{ETCD_CA_FILE\}$/m, `${section} trusts only the etcd authority`);
      assert.match(block, /^ {2}cert-file: /m);
    }
    const patroni = readFileSync(join(DEPLOY, 'patroni/patroni.yml'), 'utf8');
    const client = /^etcd:\n((?: {2}.*\n)+)/m.exec(patroni)?.[1] ?? '';
    for (const key of ['protocol: https', 'cacert: ${ETCD_CA_FILE}', 'cert: ${', 'key: ${']) {
      assert.ok(client.includes(key), `Patroni reaches etcd with ${key}`);
    }
  });

  it('PostgreSQL: from the network only hostssl with scram-sha-256, never the superuser nor every user, TLS on', () => {
    const patroni = readFileSync(join(DEPLOY, 'patroni/patroni.yml'), 'utf8');
    const hba = (/^ {2}pg_hba:\n((?: {4}- .*\n)+)/m.exec(patroni)?.[1] ?? '')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.replace(/^ {4}- /, '').split(/\s+/));
    assert.ok(hba.length > 0, 'pg_hba is set');
    for (const [type, database, user, ...rest] of hba) {
      if (type === 'local') {
        assert.deepEqual([database, user, ...rest], ['all', 'postgres', 'peer'], 'the socket: postgres as postgres');
        continue;
      }
      assert.equal(type, 'hostssl', `${type} ${database} ${user}: over TLS only`);
      assert.equal(rest.at(-1), 'scram-sha-256', `${database} ${user}: a SCRAM password`);
      assert.ok(!['all', 'postgres'].includes(user!), `no ${user} from the network`);
      assert.notEqual(database, 'all');
    }
    assert.deepEqual(
      hba.filter(([type]) => type !== 'local').map(([, database, user]) => `${database} ${user}`),
      ['replication replicator', 'postgres rewind', 'issuer issuer'],
    );
    assert.match(patroni, /^ {4}ssl: 'on'$/m);
    assert.match(patroni, /^ {2}use_unix_socket: true$/m);
    for (const user of ['replication', 'rewind']) {
      assert.match(patroni, new RegExp(`^ {4}${user}:\\n {6}username: \\w+\\n {6}sslmode: verify-ca\\n`, 'm'));
    }
    const env = settings('systemd/issuer.env').find((line) => line.startsWith('DATABASE_URL='))!;
    assert.match(env, /[?&]sslmode=verify-ca(&|$)/);
    assert.match(env, /[?&]sslrootcert=\$\{PG_CA_FILE\}(&|$)/);
  });

  it('HAProxy: TLS for the issuers, a second try only for reads and keyed scanner writes, no query string in its log', () => {
    const haproxy = settings('haproxy/haproxy.cfg');
    const frontend = haproxy.slice(haproxy.indexOf('frontend issuer'), haproxy.indexOf('backend issuers'));
    const backend = haproxy.slice(haproxy.indexOf('backend issuers'), haproxy.indexOf('listen postgres'));
    const binds = frontend.filter((line) => line.startsWith('bind '));
    assert.deepEqual(binds, ['bind ${HAPROXY_HTTPS_ADDRESS} ssl crt ${HAPROXY_CERT_FILE}']);

    assert.ok(!haproxy.some((line) => /^option\s+httplog/.test(line)), 'httplog logs the whole URI');
    const format = frontend.find((line) => line.startsWith('log-format '));
    assert.ok(format, 'a log format of its own');
    // %r: the request line; %HU: the URI; %HQ: the query string. %HP is the path alone.
    assert.doesNotMatch(format, /%(?:\{[^}]*\})?(?:r\b|HU|HQ)/);
    assert.match(format, /%(?:\{\+Q\})?HP/);

    assert.ok(backend.some((line) => /^retry-on /.test(line)));
    assert.ok(backend.includes('acl read_only method GET HEAD'));
    assert.ok(backend.includes('http-request disable-l7-retry unless read_only || keyed_write'));
    const keyed = backend
      .find((line) => line.startsWith('acl keyed_write path '))!
      .split(' ')
      .slice(3);
    // Each a scanner write the issuer refuses without an idempotency key (src/domain/scan-request.ts).
    const routes = readdirSync(join(import.meta.dirname, '..', '..', 'src', 'http', 'routes'))
      .filter((name) => name.endsWith('.ts'))
      .map((name) => readFileSync(join(import.meta.dirname, '..', '..', 'src', 'http', 'routes', name), 'utf8'))
      .join('\n');
    assert.deepEqual(keyed, [
      '/api/v1/tickets/check-in',
      '/api/v1/tickets/check-out',
      '/api/v1/tickets/check-in/annul',
      '/api/v1/tickets/scans',
    ]);
    for (const path of keyed) assert.ok(routes.includes(`'${path}'`), `${path} is a route of the issuer`);
  });
});
