import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { FixedClock } from '../../src/domain/clock.ts';
import { hashSecret } from '../../src/domain/ids.ts';
import { HOUR_MS } from '../../src/domain/time.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { ADMIN_TOKEN, BASE_URL, LogSink, NO_LIMITS, T0, testIssuer } from '../helpers/app.ts';
import { asCookie, newEvent, signIn } from '../helpers/console-session.ts';

describe('console sessions: lifetime', () => {
  it('a session unused for 12 hours ends; one in use lives on', async () => {
    const clock = new FixedClock(T0);
    const issuer = await testIssuer({ clock });
    try {
      const idle = await signIn(issuer);
      const busy = await signIn(issuer);
      for (let hour = 0; hour < 13; hour += 2) {
        clock.advance(2 * HOUR_MS);
        assert.equal((await asCookie(issuer, 'GET', '/admin/v1/events', busy.cookie)).statusCode, 200, `hour ${hour}`);
      }
      assert.equal((await asCookie(issuer, 'GET', '/admin/v1/events', idle.cookie)).statusCode, 401);
    } finally {
      await issuer.close();
    }
  });

  it('a session ends 24 hours after sign-in, however busy', async () => {
    const clock = new FixedClock(T0);
    const issuer = await testIssuer({ clock });
    try {
      const { cookie } = await signIn(issuer);
      for (let hour = 1; hour < 24; hour += 1) {
        clock.advance(HOUR_MS);
        assert.equal((await asCookie(issuer, 'GET', '/admin/v1/events', cookie)).statusCode, 200, `hour ${hour}`);
      }
      clock.advance(HOUR_MS);
      assert.equal((await asCookie(issuer, 'GET', '/admin/v1/events', cookie)).statusCode, 401);
    } finally {
      await issuer.close();
    }
  });

  it('a session survives a restart of the issuer on the same store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'issuer-session-'));
    try {
      const first = await testIssuer({ store: new SqliteStore(join(dir, 'issuer.db')) });
      const { cookie, csrf } = await signIn(first);
      await first.close();
      const second = await testIssuer({ store: new SqliteStore(join(dir, 'issuer.db')) });
      try {
        const res = await asCookie(second, 'POST', '/admin/v1/events', cookie, { 'x-csrf-token': csrf }, newEvent);
        assert.equal(res.statusCode, 201, res.body);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('console sessions: a new admin token', () => {
  it('ends every session opened with the old one', async () => {
    let adminTokenHash = hashSecret(ADMIN_TOKEN);
    const store = new SqliteStore(':memory:');
    const app = await buildApp(loadConfig({ BASE_URL, ADMIN_TOKEN, ...NO_LIMITS }), {
      store,
      keyEncryptionKey: Buffer.alloc(32, 7),
      adminTokenHash,
      adminTokenHashSource: async () => adminTokenHash,
      logStream: new LogSink(),
    });
    const issuer = { app };
    try {
      const { cookie } = await signIn(issuer);
      assert.equal((await asCookie(issuer, 'GET', '/admin/v1/events', cookie)).statusCode, 200);
      adminTokenHash = hashSecret('a-new-admin-token-after-a-reset-0123');
      assert.equal((await asCookie(issuer, 'GET', '/admin/v1/events', cookie)).statusCode, 401);
      adminTokenHash = hashSecret(ADMIN_TOKEN);
      assert.equal((await asCookie(issuer, 'GET', '/admin/v1/events', cookie)).statusCode, 401, 'ended for good');
    } finally {
      await app.close();
      await store.close();
    }
  });
});
