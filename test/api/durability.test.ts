import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { assertKillDuringCheckInsLosesNothing } from '../helpers/kill-during-check-ins.ts';
import { call, enrollScanner, type RunningServer, startServer } from '../helpers/server.ts';

const ADMIN = 'durability-admin-token-0123456789';

describe('the real server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'issuer-'));
  const servers: RunningServer[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGKILL')));
    rmSync(dir, { recursive: true, force: true });
  });
  const start = async (env: Record<string, string>) => {
    const server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'issuer.db')}`, ...env });
    servers.push(server);
    return server;
  };

  it('an answered check-in and its idempotent replay survive kill -9', async () => {
    const first = await start({ ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'debug' });
    const base = first.url;
    const event = await call(`${base}/admin/v1/events`, {
      bearer: ADMIN,
      body: { name: 'Crash test', event_date: new Date(Date.now() + 3_600_000).toISOString() },
    });
    const eid = String(event.body.eid);
    const ticket = await call(`${base}/admin/v1/events/${eid}/tickets`, {
      bearer: ADMIN,
      body: { holder_name: 'Ada', ticket_type: 'GA' },
    });
    const tid = String(ticket.body.tid);
    const { scannerId, apiKey, apiKeyId, enrollmentToken } = await enrollScanner(base, ADMIN, eid);
    const checkIn = {
      tid,
      eid,
      scanned_at: new Date().toISOString(),
      scanner_id: scannerId,
      idempotency_key: randomUUID(),
    };
    const answered = await call(`${base}/api/v1/tickets/check-in`, { bearer: apiKey, body: checkIn });
    assert.equal(answered.body.status, 'valid');

    const logged = first.stdout() + first.stderr();
    assert.ok(logged.includes(apiKeyId), 'the server logs at debug level');
    for (const secret of [apiKey, enrollmentToken, ADMIN]) {
      assert.equal(logged.includes(secret), false, 'no secret in the server output');
    }
    await first.stop('SIGKILL');
    const second = await start({ ADMIN_TOKEN: ADMIN });

    const status = await call(`${second.url}/api/v1/tickets/${tid}/status`, { bearer: apiKey });
    assert.equal(status.body.status, 'checked_in');
    const replay = await call(`${second.url}/api/v1/tickets/check-in`, { bearer: apiKey, body: checkIn });
    assert.equal(replay.text, answered.text);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    const again = await call(`${second.url}/api/v1/tickets/check-in`, {
      bearer: apiKey,
      body: { ...checkIn, idempotency_key: randomUUID() },
    });
    assert.equal(again.body.status, 'already_used');
    await second.stop('SIGTERM');
    assert.equal(second.process.exitCode, 0, 'SIGTERM closes with grace');
  });

  it('the first start without ADMIN_TOKEN prints a generated admin token once; later starts reuse it', async () => {
    const fresh = join(dir, 'fresh');
    const env = { DATABASE_URL: `sqlite:${join(fresh, 'issuer.db')}` };
    const first = await start(env);
    const token = /\b(at_[A-Za-z0-9_-]{43})\b/.exec(first.stderr())?.[1];
    assert.ok(token, 'the token is printed');
    assert.equal(first.stderr().split(token).length - 1, 1, 'exactly once');
    assert.equal(first.stdout().includes(token), false, 'never in the log lines');
    assert.equal((await call(`${first.url}/admin/v1/events`, { bearer: token })).status, 200);
    await first.stop();

    const second = await start(env);
    assert.doesNotMatch(second.stderr(), /at_[A-Za-z0-9_-]{43}/, 'not printed again');
    assert.equal((await call(`${second.url}/admin/v1/events`, { bearer: token })).status, 200);
    const keyFile = statSync(join(fresh, 'key-encryption.key'));
    assert.equal(keyFile.mode & 0o777, 0o600, 'the generated key-encryption key is readable by its owner only');
    for (const file of ['issuer.db', 'issuer.db-wal']) {
      assert.equal(statSync(join(fresh, file)).mode & 0o777, 0o600, `${file} is readable by its owner only`);
    }
    await second.stop();
  });

  it('a bad configuration stops the start with a clear message naming the variable', async () => {
    await assert.rejects(start({ PORT: 'eighty' }), /PORT must be a whole number/);
    await assert.rejects(start({ KEY_ENCRYPTION_KEY: 'short' }), /KEY_ENCRYPTION_KEY must be 32 bytes/);
  });

  it('kill -9 while check-ins commit in groups loses none that was answered', async () => {
    // Limits out of the way: the test sends thousands of check-ins with one key.
    await assertKillDuringCheckInsLosesNothing(start, {
      ADMIN_TOKEN: ADMIN,
      DATABASE_URL: `sqlite:${join(dir, 'groups', 'issuer.db')}`,
      RATE_LIMIT_CHECKIN_PER_KEY: '100000',
    });
  });
});
