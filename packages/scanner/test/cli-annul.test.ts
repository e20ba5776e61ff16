import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type CliRun, runCli } from './cli-process.ts';
import { freePort, Issuer, tempDir } from './issuer.ts';

let issuer: Issuer;

before(async () => {
  issuer = await Issuer.start();
});
after(async () => {
  if (process.env.SHOW_ISSUER_LOG || issuer.output.includes('ended unexpectedly')) process.stderr.write(issuer.output);
  await issuer?.stop();
});

async function enrolled(eid: string, name: string): Promise<string> {
  const dir = join(tempDir(), name);
  const run = await runCli(['enroll', await issuer.setupUri(eid), '--state', dir, '--json']);
  assert.equal(run.code, 0, run.stderr);
  return dir;
}

async function scan(dir: string, token: string, options: { offline?: boolean; exit?: boolean } = {}) {
  const args = [options.exit ? 'exit' : 'scan', token, '--state', dir, '--json'];
  const run = await runCli(options.offline ? [...args, '--offline'] : args);
  assert.equal(run.code, 0, run.stderr);
  return run.json[0] as { verdict: string; reason: string; idempotency_key: string; source: string };
}

const annul = (dir: string, ...args: string[]) => runCli(['annul', ...args, '--state', dir, '--json']);

/** The ticket as the issuer's status route answers it (with this device's key). */
async function status(dir: string, tid: string): Promise<{ status: string; entries: number; inside: boolean }> {
  const { api_key } = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')) as { api_key: string };
  const res = await fetch(`${issuer.url}/api/v1/tickets/${tid}/status`, {
    headers: { authorization: `Bearer ${api_key}` },
  });
  assert.equal(res.status, 200);
  return (await res.json()) as { status: string; entries: number; inside: boolean };
}

/** A refusal: its line on stdout, one line on stderr with the reason, exit 4. */
function assertRefused(run: CliRun, reason: string, source: string): void {
  assert.equal(run.code, 4, run.stderr);
  assert.deepEqual([run.json[0]!.annulled, run.json[0]!.reason, run.json[0]!.source], [false, reason, source]);
  const lines = run.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0]!, new RegExp(`^ticket-scanner: not annulled \\(${reason}\\): `));
}

describe('ticket-scanner annul against a real issuer', { concurrency: true }, () => {
  test('online: the last admit is annulled by the issuer, the ticket is valid again, and the device admits it again offline', async () => {
    const eid = await issuer.createEvent('Annul online');
    const [ticket] = await issuer.issue(eid, 1);
    const dir = await enrolled(eid, 'gate');
    const admit = await scan(dir, ticket!.token);
    assert.deepEqual([admit.verdict, admit.source], ['admit', 'issuer']);
    assert.equal((await status(dir, ticket!.tid)).status, 'checked_in');

    const run = await annul(dir);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(run.json, [{ annulled: true, idempotency_key: admit.idempotency_key, source: 'issuer' }]);
    const after = await status(dir, ticket!.tid);
    assert.deepEqual([after.status, after.entries, after.inside], ['valid', 0, false]);
    // The same annul again, by its key: the issuer answers it again.
    const again = await annul(dir, admit.idempotency_key);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.json[0]!.source, 'issuer');
    // The device knew at once: unused again, admitted again without asking.
    assert.deepEqual(
      [(await scan(dir, ticket!.token, { offline: true })).reason, (await scan(dir, ticket!.token)).reason],
      ['valid', 'already_used'],
    );
  });

  test('online refusals: an entry the holder left since is not_latest, a key never used not_found (exit 4)', async () => {
    const eid = await issuer.createEvent('Annul refused');
    const [ticket] = await issuer.issue(eid, 1);
    const dir = await enrolled(eid, 'door');
    const admit = await scan(dir, ticket!.token);
    assert.equal((await scan(dir, ticket!.token, { exit: true })).reason, 'checked_out');
    assertRefused(await annul(dir, admit.idempotency_key), 'not_latest', 'issuer');
    assertRefused(await annul(dir, '5d1c7a4e-2b1f-4c3d-8e9f-0a1b2c3d4e5f'), 'not_found', 'issuer');
    assert.equal((await status(dir, ticket!.tid)).entries, 1, 'nothing changed');
    const human = await runCli(['annul', '--state', dir, '--offline']);
    assert.equal(human.code, 4);
    assert.match(human.stdout, /^NOT ANNULLED {2}not_latest {2}\S+ {2}\(device\)\n$/);
    const usage = await runCli(['annul', 'not-a-key', '--state', dir]);
    assert.equal(usage.code, 2, usage.stderr);
  });

  test('offline: admitted and annulled offline, then synced in order: the ticket is unused, the scan log keeps the scan with annulled_at', async () => {
    const eid = await issuer.createEvent('Annul offline');
    const [ticket, kept] = await issuer.issue(eid, 2);
    const dir = await enrolled(eid, 'field');
    const admit = await scan(dir, ticket!.token, { offline: true });
    assert.deepEqual([admit.verdict, admit.source], ['admit', 'offline']);
    await scan(dir, kept!.token, { offline: true });
    const run = await annul(dir, admit.idempotency_key, '--offline');
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(run.json, [{ annulled: true, idempotency_key: admit.idempotency_key, source: 'queued' }]);
    const queued = await runCli(['status', '--state', dir, '--json']);
    assert.equal(queued.json[0]!.queued, 3, 'two scans and the annul');

    const sync = await runCli(['sync', '--state', dir, '--json']);
    assert.equal(sync.code, 0, sync.stderr);
    const report = sync.json[0] as { uploaded: number; remaining: number; outcomes: Record<string, number> };
    assert.deepEqual(
      [report.uploaded, report.remaining, report.outcomes.valid, report.outcomes.annulled],
      [3, 0, 2, 1],
    );
    const after = await status(dir, ticket!.tid);
    assert.deepEqual([after.status, after.entries, after.inside], ['valid', 0, false]);
    assert.equal((await status(dir, kept!.tid)).entries, 1);
    const line = (await issuer.scans(eid)).find((s) => s.idempotency_key === admit.idempotency_key)!;
    assert.equal(line.outcome, 'valid');
    assert.equal(typeof line.annulled_at, 'string');
    // After the sync, and the feed that came with it, the device still knows the ticket unused.
    assert.equal((await scan(dir, ticket!.token, { offline: true })).reason, 'valid');
  });

  test('an issuer that cannot be reached: the annul is queued on the device, and goes up at the next sync', async () => {
    const eid = await issuer.createEvent('Annul unreachable');
    const [ticket] = await issuer.issue(eid, 1);
    const dir = await enrolled(eid, 'bar');
    const admit = await scan(dir, ticket!.token);
    // The device's idea of where the issuer is points at a closed port for a while.
    const file = join(dir, 'discovery.json');
    const saved = readFileSync(file, 'utf8');
    const closed = `http://127.0.0.1:${await freePort()}`;
    writeFileSync(file, saved.replaceAll(issuer.url, closed));
    const run = await annul(dir);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(run.json, [{ annulled: true, idempotency_key: admit.idempotency_key, source: 'queued' }]);
    writeFileSync(file, saved);
    assert.equal((await status(dir, ticket!.tid)).entries, 1, 'not yet');
    const sync = await runCli(['sync', '--state', dir, '--json']);
    assert.equal(sync.code, 0, sync.stderr);
    assert.deepEqual([(await status(dir, ticket!.tid)).status, (await status(dir, ticket!.tid)).entries], ['valid', 0]);
  });

  test('another scanner’s annul reaches this device through the feed: it admits the ticket again offline', async () => {
    const eid = await issuer.createEvent('Annul elsewhere');
    const [ticket] = await issuer.issue(eid, 1);
    const here = await enrolled(eid, 'here');
    const there = await enrolled(eid, 'there');
    assert.equal((await scan(there, ticket!.token)).verdict, 'admit');
    assert.equal((await runCli(['sync', '--state', here, '--json'])).code, 0);
    assert.equal((await scan(here, ticket!.token, { offline: true })).reason, 'already_used');

    assert.equal((await annul(there)).code, 0);
    const sync = await runCli(['sync', '--state', here, '--json']);
    assert.equal(sync.code, 0, sync.stderr);
    const again = await scan(here, ticket!.token, { offline: true });
    assert.deepEqual([again.verdict, again.reason], ['admit', 'valid']);
  });
});
