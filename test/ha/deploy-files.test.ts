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
    assert.deepEqual(unit.execStart, [process.execPath, join(import.meta.dirname, '..', '..', 'scripts', 'start.js')]);
  });
});
