import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LiveCli, runCli } from './cli-process.ts';
import { Issuer, tempDir } from './issuer.ts';

let issuer: Issuer;
let eid: string;

/** Enrols a new scanner state; returns its directory and scanner_id. */
async function enrolled(name: string): Promise<{ dir: string; scannerId: string }> {
  const dir = join(tempDir(), name);
  const run = await runCli(['enroll', await issuer.setupUri(eid), '--state', dir, '--name', name, '--json']);
  assert.equal(run.code, 0, run.stderr);
  return { dir, scannerId: String(run.json[0]!.scanner_id) };
}

async function scanOffline(dir: string, ...tokens: string[]) {
  const run = await runCli(['scan', '--offline', '--state', dir, '--json', ...tokens]);
  assert.equal(run.code, 0, run.stderr);
  return run.json;
}

async function sync(dir: string) {
  const run = await runCli(['sync', '--state', dir, '--json']);
  assert.equal(run.code, 0, `sync exited ${run.code}: ${run.stderr}`);
  return run.json[0]! as {
    uploaded: number;
    remaining: number;
    refused: number;
    changes: number;
    outcomes: Record<string, number>;
  };
}

before(async () => {
  issuer = await Issuer.start();
  eid = await issuer.createEvent('Offline test event');
});

after(async () => {
  if (issuer.output.includes('ended unexpectedly')) process.stderr.write(issuer.output);
  await issuer.stop();
});

describe('offline scanning against a real issuer', { concurrency: true }, () => {
  describe('offline scanners and the issuer agree after sync', { concurrency: false }, () => {
    let first: { dir: string; scannerId: string };

    test('two scanners admit one ticket offline; after both sync the issuer counts one valid, one already_used, and reports the conflict naming both', async () => {
      first = await enrolled('north');
      const second = await enrolled('south');
      const [ticket] = await issuer.issue(eid, 1);
      assert.equal((await scanOffline(first.dir, ticket!.token))[0]!.verdict, 'admit');
      assert.equal((await scanOffline(second.dir, ticket!.token))[0]!.verdict, 'admit');
      const a = await sync(first.dir);
      const b = await sync(second.dir);
      assert.equal(a.outcomes.valid! + b.outcomes.valid!, 1);
      assert.equal(a.outcomes.already_used! + b.outcomes.already_used!, 1);
      assert.deepEqual([a.remaining, b.remaining, a.refused, b.refused], [0, 0, 0, 0]);
      const { conflicts } = await issuer.admin<{
        conflicts: {
          tid: string;
          first: { scanner_id: string };
          duplicates: { scanner_id: string; admitted_offline: boolean }[];
        }[];
      }>('GET', `/admin/v1/events/${eid}/conflicts`);
      const conflict = conflicts.find((c) => c.tid === ticket!.tid);
      assert.ok(conflict, 'the ticket is in the conflicts report');
      assert.equal(conflict.first.scanner_id, first.scannerId);
      assert.deepEqual(
        conflict.duplicates.map((d) => [d.scanner_id, d.admitted_offline]),
        [[second.scannerId, true]],
      );
      assert.ok((await issuer.counters(eid)).conflicts! >= 1);
    });

    test('one sync brings revocation and reissue to an offline scanner: revoked ticket and old token revoked, new token admitted', async () => {
      const [revoked, reissued] = await issuer.issue(eid, 2);
      await issuer.admin('POST', `/admin/v1/tickets/${revoked!.tid}/revoke`, { reason: 'refund' });
      const fresh = await issuer.admin<{ ticket_token: string }>(
        'POST',
        `/admin/v1/tickets/${reissued!.tid}/reissue`,
        {},
      );
      assert.notEqual(fresh.ticket_token, reissued!.token);
      const result = await sync(first.dir);
      assert.ok(result.changes >= 2, `changes: ${result.changes}`);
      const verdicts = await scanOffline(first.dir, revoked!.token, reissued!.token, fresh.ticket_token);
      assert.deepEqual(
        verdicts.map((v) => [v.verdict, v.reason, v.tid]),
        [
          ['reject', 'revoked', revoked!.tid],
          ['reject', 'revoked', reissued!.tid],
          ['admit', 'valid', reissued!.tid],
        ],
      );
      const status = (await runCli(['status', '--state', first.dir, '--json'])).json[0]!;
      assert.ok((status.revoked_known as number) >= 1);
      assert.equal(typeof status.last_sync_at, 'string');
    });
  });

  describe('a verdict line means the scan is stored', { concurrency: true }, () => {
    for (const mode of ['offline', 'online'] as const) {
      test(`kill -9 of an ${mode} scan process after N verdict lines: after sync the issuer's scan log holds all N`, async () => {
        const { dir } = await enrolled(`kill-${mode}`);
        const tickets = await issuer.issue(eid, 6);
        const cli = new LiveCli(['scan', '--state', dir, '--json', ...(mode === 'offline' ? ['--offline'] : [])]);
        const N = 5;
        for (let i = 0; i < N; i++) await cli.scan(tickets[i]!.token);
        // One more token in flight when the process dies: it may or may not be stored, never half.
        cli.write(tickets[N]!.token);
        await cli.kill();
        const lines = cli.lines;
        const keys = lines.slice(0, N).map((line) => (JSON.parse(line) as { idempotency_key: string }).idempotency_key);
        await sync(dir);
        const logged = new Set((await issuer.scans(eid)).map((s) => s.idempotency_key));
        for (const key of keys) assert.ok(logged.has(key), `scan ${key} reached the issuer`);
      });
    }
  });
});
