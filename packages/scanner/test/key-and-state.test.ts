import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LiveCli, runCli } from './cli-process.ts';
import { Issuer, tempDir } from './issuer.ts';

const KEY_LINE = "this scanner's key is revoked or expired: enrol again\n";

let issuer: Issuer;
let eid: string;

async function enrol(dir: string, name?: string) {
  const args = ['enroll', await issuer.setupUri(eid), '--state', dir, '--json'];
  const run = await runCli(name === undefined ? args : [...args, '--name', name]);
  assert.equal(run.code, 0, run.stderr);
  return run.json[0]! as { scanner_id: string; api_key_id: string };
}

async function queued(dir: string): Promise<number> {
  const run = await runCli(['status', '--state', dir, '--json']);
  assert.equal(run.code, 0, run.stderr);
  return run.json[0]!.queued as number;
}

const revokeKey = (apiKeyId: string) => issuer.admin('POST', `/admin/v1/api-keys/${apiKeyId}/revoke`);

before(async () => {
  issuer = await Issuer.start();
  eid = await issuer.createEvent('Keys and state');
});

after(async () => {
  if (issuer.output.includes('ended unexpectedly')) process.stderr.write(issuer.output);
  await issuer.stop();
});

describe('a revoked key', { concurrency: true }, () => {
  test('sync and scan exit 1 with the one line, every scan stays queued; enrolling again into the same directory keeps scanner_id and name, and the queue then syncs', async () => {
    const dir = join(tempDir(), 'state');
    const first = await enrol(dir, 'Gate K');
    const [admitted, turnedAway] = await issuer.issue(eid, 2);
    const offline = await runCli(['scan', '--offline', '--state', dir, '--json', admitted!.token]);
    assert.equal(offline.code, 0, offline.stderr);
    await revokeKey(first.api_key_id);

    const sync = await runCli(['sync', '--state', dir, '--json']);
    assert.deepEqual([sync.code, sync.stderr, sync.stdout], [1, KEY_LINE, '']);
    const online = await runCli(['scan', '--state', dir, '--json', turnedAway!.token]);
    assert.deepEqual([online.code, online.stderr, online.stdout], [1, KEY_LINE, ''], 'no verdict is shown');
    assert.equal(await queued(dir), 2);
    assert.equal(existsSync(join(dir, 'refused.jsonl')), false, 'nothing was refused');

    const again = await enrol(dir);
    assert.equal(again.scanner_id, first.scanner_id);
    assert.notEqual(again.api_key_id, first.api_key_id);
    const scanners = await issuer.admin<{ scanners: { scanner_id: string; name: string; api_key_id: string }[] }>(
      'GET',
      `/admin/v1/events/${eid}/scanners`,
    );
    const record = scanners.scanners.find((s) => s.api_key_id === again.api_key_id);
    assert.deepEqual([record?.scanner_id, record?.name], [first.scanner_id, 'Gate K']);

    // The enrolment's first sync sent the queue under the new key.
    assert.equal(await queued(dir), 0);
    const synced = await runCli(['sync', '--state', dir, '--json']);
    assert.equal(synced.code, 0, synced.stderr);
    assert.deepEqual([synced.json[0]!.uploaded, synced.json[0]!.remaining], [0, 0]);
    const logged = (await issuer.scans(eid)).filter((s) => s.scanner_id === first.scanner_id);
    const outcome = (tid: string) => logged.filter((s) => s.tid === tid).map((s) => [s.outcome, s.admitted_offline]);
    assert.deepEqual(outcome(admitted!.tid), [['valid', true]]);
    // The online scan cut short by the 401 showed no verdict: the holder was not let in on it.
    assert.deepEqual(outcome(turnedAway!.tid), [['turned_away_offline', false]]);
    const ticket = await issuer.admin<{ checked_in_at: string | null }>('GET', `/admin/v1/tickets/${turnedAway!.tid}`);
    assert.equal(ticket.checked_in_at ?? null, null);
  });

  test('an online scan whose earlier queued scan of the same ticket meets the 401 is kept queued too', async () => {
    const dir = join(tempDir(), 'state');
    const first = await enrol(dir, 'Gate L');
    const [ticket] = await issuer.issue(eid, 1);
    const offline = await runCli(['scan', '--offline', '--state', dir, '--json', ticket!.token]);
    assert.equal(offline.code, 0, offline.stderr);
    await revokeKey(first.api_key_id);
    const online = await runCli(['scan', '--state', dir, '--json', ticket!.token]);
    assert.deepEqual([online.code, online.stderr, online.stdout], [1, KEY_LINE, ''], 'no verdict is shown');
    assert.equal(await queued(dir), 2, 'the scan cut short by the 401 is kept beside the earlier one');
  });

  test('sync with nothing queued: the changes feed answers 401, the same line and exit 1', async () => {
    const dir = join(tempDir(), 'state');
    await revokeKey((await enrol(dir)).api_key_id);
    const sync = await runCli(['sync', '--state', dir]);
    assert.deepEqual([sync.code, sync.stderr], [1, KEY_LINE]);
  });
});

describe('the state directory', { concurrency: true }, () => {
  let template: string;
  let token: string;

  before(async () => {
    template = join(tempDir(), 'state');
    await enrol(template);
    token = (await issuer.issue(eid, 1))[0]!.token;
  });

  const copy = () => {
    const dir = join(tempDir(), 'state');
    cpSync(template, dir, { recursive: true });
    return dir;
  };

  test('kill -9 of a scan, then sync within 100 ms: the sync is not blocked by the dead process’s lock', async () => {
    const dir = copy();
    const tickets = await issuer.issue(eid, 2);
    const cli = new LiveCli(['scan', '--offline', '--state', dir, '--json']);
    for (const ticket of tickets) await cli.scan(ticket.token);
    const killed = Date.now();
    cli.child.kill('SIGKILL');
    const syncing = runCli(['sync', '--state', dir, '--json']);
    assert.ok(Date.now() - killed < 100);
    const sync = await syncing;
    assert.equal(sync.code, 0, sync.stderr);
    assert.deepEqual([sync.json[0]!.uploaded, sync.json[0]!.remaining], [2, 0]);
  });

  const corruptions: [file: string, content: string, advice: RegExp][] = [
    ['scanner.json', '{"issuer": tru', /remove it and enrol again/],
    ['credentials.json', '', /enrol again/],
    ['discovery.json', '[]', /enrol again/],
    ['knowledge.json', '{"cursor": 5}', /remove it; the next sync pulls the changes feed/],
    ['knowledge.jsonl', '{"op":"page"\n', /remove it; the next sync pulls the changes feed again/],
    ['journal.jsonl', '{"op":"scan"\n', /delete the line/],
  ];
  for (const [file, content, advice] of corruptions) {
    test(`${file} that cannot be parsed: exit 1, one line naming the file and what to do, no stack trace`, async () => {
      const dir = copy();
      writeFileSync(join(dir, file), content);
      for (const args of [['scan', '--offline', token], ['sync']]) {
        const run = await runCli([...args, '--state', dir]);
        assert.equal(run.code, 1, run.stderr);
        const lines = run.stderr.trimEnd().split('\n');
        assert.equal(lines.length, 1, run.stderr);
        assert.ok(lines[0]!.startsWith(`ticket-scanner: state file ${join(dir, file)} is corrupted`), lines[0]);
        assert.match(lines[0]!, advice);
      }
    });
  }

  test('following the advice for knowledge.json (remove it) loses nothing: the next sync works', async () => {
    const dir = copy();
    rmSync(join(dir, 'knowledge.json'));
    const sync = await runCli(['sync', '--state', dir, '--json']);
    assert.equal(sync.code, 0, sync.stderr);
    assert.equal(typeof JSON.parse(readFileSync(join(dir, 'knowledge.json'), 'utf8')).cursor, 'string');
  });

  test('following the advice for knowledge.jsonl (remove it) loses nothing: the next sync works', async () => {
    const dir = copy();
    rmSync(join(dir, 'knowledge.jsonl'));
    const sync = await runCli(['sync', '--state', dir, '--json']);
    assert.equal(sync.code, 0, sync.stderr);
    const status = await runCli(['status', '--state', dir, '--json']);
    assert.equal(typeof status.json[0]!.last_sync_at, 'string', status.stderr);
  });
});
