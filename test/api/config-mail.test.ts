import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { configuredSecrets, secretMasker } from '../../src/http/log-masking.ts';

const MAIL = {
  SMTP_URL: 'smtps://tickets%40example.org:p%40ss%2Fw0rd@mail.example.org:465',
  MAIL_FROM: 'tickets@example.org',
};

const refused = (env: Record<string, string>, pattern: RegExp) =>
  assert.throws(
    () => loadConfig(env),
    (error: Error) => error instanceof ConfigError && pattern.test(error.message),
  );

describe('SMTP_URL, MAIL_FROM and MAIL_RETRY_SCHEDULE_S', () => {
  it('are read together; unset, mail is off', () => {
    const mail = loadConfig(MAIL).mail;
    assert.equal(mail?.smtpUrl, MAIL.SMTP_URL);
    assert.equal(mail?.smtpPassword, 'p@ss/w0rd');
    assert.equal(mail?.from, 'tickets@example.org');
    assert.equal(loadConfig({}).mail, null);
    assert.equal(loadConfig({ SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_FROM: 'a@b.example' }).mail?.smtpPassword, null);
    const named = loadConfig({ ...MAIL, MAIL_FROM: 'Box Office <tickets@example.org>' }).mail;
    assert.equal(named?.from, 'Box Office <tickets@example.org>');
  });

  it('the default schedule covers at least 24 hours; a schedule of the webhooks form is read', () => {
    const schedule = loadConfig(MAIL).mail!.retrySchedule;
    assert.ok(schedule.reduce((a, b) => a + b, 0) >= 24 * 3600, `${schedule.join(',')} is under a day`);
    assert.deepEqual(loadConfig({ ...MAIL, MAIL_RETRY_SCHEDULE_S: '1, 2,3' }).mail!.retrySchedule, [1, 2, 3]);
  });

  it('bad values are refused, each naming its variable and never echoing the URL', () => {
    for (const bad of ['http://mail.example.org', 'mail.example.org', 'smtp://', 'smtps://u:secretpw@h/path']) {
      assert.throws(
        () => loadConfig({ ...MAIL, SMTP_URL: bad }),
        (error: Error) =>
          error instanceof ConfigError &&
          /^SMTP_URL must be/.test(error.message) &&
          !error.message.includes('secretpw'),
      );
    }
    refused({ SMTP_URL: MAIL.SMTP_URL }, /^SMTP_URL is set but MAIL_FROM is not/);
    refused({ MAIL_FROM: MAIL.MAIL_FROM }, /^MAIL_FROM is set but SMTP_URL is not/);
    for (const bad of ['tickets', 'a@b@c', 'Box <tickets>', 'x y@example.org', '<a@b_c>']) {
      refused({ ...MAIL, MAIL_FROM: bad }, /^MAIL_FROM must be an email address/);
    }
    for (const bad of ['0', '5,x', '-1', '1,,2', '604801']) {
      refused({ ...MAIL, MAIL_RETRY_SCHEDULE_S: bad }, /^MAIL_RETRY_SCHEDULE_S must be up to 50 delays/);
    }
    refused({ MAIL_RETRY_SCHEDULE_S: 'soon' }, /^MAIL_RETRY_SCHEDULE_S/);
    for (const bad of ['0', '601', '1.5', 'a minute']) {
      refused({ ...MAIL, MAIL_SEND_TIMEOUT_S: bad }, /^MAIL_SEND_TIMEOUT_S must be a whole number from 1 to 600/);
    }
  });

  it('one send may take a minute unless MAIL_SEND_TIMEOUT_S says otherwise', () => {
    assert.equal(loadConfig(MAIL).mail!.sendTimeoutSeconds, 60);
    assert.equal(loadConfig({ ...MAIL, MAIL_SEND_TIMEOUT_S: '5' }).mail!.sendTimeoutSeconds, 5);
  });

  it('the password of SMTP_URL is masked in log lines, raw, percent-encoded or inside another SMTP URL', () => {
    const mask = secretMasker(configuredSecrets(loadConfig(MAIL)));
    assert.equal(
      mask('connecting to smtps://tickets%40example.org:p%40ss%2Fw0rd@mail.example.org:465'),
      'connecting to smtps://tickets%40example.org:[redacted]@mail.example.org:465',
    );
    assert.equal(mask('pw p@ss/w0rd'), 'pw [redacted]');
    assert.equal(mask('smtp://u:other-secret@host:25'), 'smtp://u:[redacted]@host:25');
    assert.equal(mask('smtp://host:25 and user@example.org'), 'smtp://host:25 and user@example.org');
  });

  const dir = mkdtempSync(join(tmpdir(), 'issuer-mail-config-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a bad value stops the real start with exit code 1 and one line naming it, before anything is created', () => {
    const result = spawnSync(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), join(process.cwd(), 'src/server.ts')],
      {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          PORT: '0',
          SMTP_URL: 'smtp://u:hunter2secret@mail.example.org',
        },
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    assert.equal(result.status, 1);
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0]!, /SMTP_URL is set but MAIL_FROM is not/);
    assert.ok(!result.stderr.includes('hunter2secret'));
    assert.deepEqual(readdirSync(dir), [], 'nothing was created');
  });
});
