import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, freePort, type RunningServer, startServer } from '../helpers/server.ts';

const ADMIN = 'walkthrough-admin-token-0123456789';
const SCRIPT = resolve('docs/walkthrough.sh');
const missing = ['curl', 'jq'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
const skip = missing.length > 0 ? `needs ${missing.join(' and ')}` : false;
if (skip) process.stderr.write(`\n!!! README walk-through test SKIPPED: ${skip}\n\n`);

describe("the README's walk-through", () => {
  let server: RunningServer;
  // Inside the repository (data/ is ignored by git), so that `npx --no-install ticket-scanner` finds the CLI.
  mkdirSync(resolve('data'), { recursive: true });
  const dir = mkdtempSync(join(resolve('data'), 'readme-'));
  before(async () => {
    if (skip) return;
    const port = await freePort();
    server = await startServer({
      DATABASE_URL: `sqlite:${join(dir, 'issuer.db')}`,
      ADMIN_TOKEN: ADMIN,
      PORT: String(port),
      BASE_URL: `http://127.0.0.1:${port}`,
    });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const run = (env: Record<string, string>) =>
    spawnSync('bash', [SCRIPT], { cwd: dir, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });

  it('the README shows docs/walkthrough.sh as it is', () => {
    assert.ok(readFileSync('README.md', 'utf8').includes(readFileSync(SCRIPT, 'utf8')));
  });

  it('runs from start to end against a real issuer', { skip }, () => {
    const result = run({ ISSUER: server.url, ADMIN_TOKEN: ADMIN });
    assert.equal(result.status, 0, result.stderr);
    const lines = result.stdout.trim().split('\n');
    assert.equal(JSON.parse(lines[0]!).status, 'valid');
    assert.equal(lines[1], lines[0], 'the replay gives the same answer');
    assert.equal(JSON.parse(lines[2]!).status, 'already_used');
    assert.equal(JSON.parse(lines[3]!).status, 'checked_in');
    assert.equal(JSON.parse(lines[4]!).checked_in, 1);
    // One line per scan: the replay writes none.
    assert.deepEqual(lines.slice(5), ['["valid",false]', '["already_used",false]']);
  });

  it('stops at the first failed step and says why', { skip }, () => {
    const result = run({ ISSUER: server.url, ADMIN_TOKEN: 'a-wrong-admin-token-0123456789' });
    assert.notEqual(result.status, 0);
    assert.match(result.stderr, /401/);
    assert.equal(result.stdout, '', 'no later step ran');
  });

  it(
    'the "Scanning offline" steps run as written: a refund, enrol (with its first sync), scan offline, sync, conflicts',
    { skip },
    async () => {
      const readme = readFileSync('README.md', 'utf8');
      const section = readme.slice(readme.indexOf('## Scanning offline'));
      const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
      const events = await call(`${server.url}/admin/v1/events`, { bearer: ADMIN });
      const eid = String((events.body.events as { eid: string }[]).at(-1)!.eid);
      const tickets = (JSON.parse(readFileSync(join(dir, 'tickets.json'), 'utf8')) as { tickets: { tid: string }[] })
        .tickets;
      const result = spawnSync('bash', ['-euo', 'pipefail', '-c', block], {
        cwd: dir,
        env: { ...process.env, ISSUER: server.url, ADMIN: `Authorization: Bearer ${ADMIN}`, EID: eid },
        // No stdin: bash takes a socket on stdin for a remote shell and would read the system's bashrc.
        stdio: ['ignore', 'pipe', 'pipe'],
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stderr, '', 'enrolment and its first sync went through without a word');
      const lines = result.stdout.trim().split('\n');
      const enrolled = JSON.parse(lines[0]!);
      assert.equal(enrolled.eid, eid);
      assert.equal(enrolled.gate_id, 'north');
      const verdicts = lines.slice(1, 4).map((line) => JSON.parse(line));
      assert.deepEqual(
        verdicts.map((v) => v.tid),
        tickets.map((t) => t.tid),
      );
      // Enrolment pulled the feed: the ticket the walk-through checked in and the one revoked before
      // enrolment are turned away offline; only the unused ticket goes in.
      for (const [i, why] of [
        [0, 'already inside'],
        [2, 'revoked before enrolment'],
      ] as const) {
        assert.equal(verdicts[i].verdict, 'reject', `the ticket ${why} was admitted offline`);
      }
      assert.deepEqual(
        verdicts.map((v) => [v.verdict, v.reason, v.source, v.synced]),
        [
          ['reject', 'already_used', 'offline', undefined],
          ['admit', 'valid', 'offline', undefined],
          ['reject', 'revoked', 'offline', undefined],
        ],
      );
      const synced = JSON.parse(lines[4]!);
      assert.deepEqual([synced.uploaded, synced.remaining, synced.refused], [3, 0, 0]);
      assert.deepEqual([synced.outcomes.valid, synced.outcomes.already_used, synced.outcomes.revoked], [1, 1, 1]);
      const status = JSON.parse(lines[5]!);
      assert.deepEqual([status.queued, status.revoked_known], [0, 1]);
      const report = JSON.parse(lines.slice(6).join('\n'));
      assert.deepEqual(report.conflicts, [], 'no ticket was let in twice');
    },
  );
});
