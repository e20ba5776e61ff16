import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Scanner } from '../src/index.ts';
import { FsStorage } from '../src/storage/fs.ts';
import { runCli } from './cli-process.ts';
import { Issuer, tempDir } from './issuer.ts';

let issuer: Issuer;
let eid: string;

async function enrolled(name: string): Promise<string> {
  const dir = join(tempDir(), name);
  const run = await runCli(['enroll', await issuer.setupUri(eid), '--state', dir, '--name', name, '--json']);
  assert.equal(run.code, 0, run.stderr);
  return dir;
}

async function scan(dir: string, token: string, offline: boolean) {
  const run = await runCli(['scan', token, '--state', dir, '--json', ...(offline ? ['--offline'] : [])]);
  assert.equal(run.code, 0, run.stderr);
  return run.json[0]! as { verdict: string; reason: string; source: string; idempotency_key: string };
}

async function sync(dir: string) {
  const run = await runCli(['sync', '--state', dir, '--json']);
  assert.equal(run.code, 0, `sync exited ${run.code}: ${run.stderr}`);
  return run.json[0]! as { uploaded: number; remaining: number; refused: number; outcomes: Record<string, number> };
}

/** The ticket's state by the scanner API's status endpoint, with the device's own key. */
async function ticketStatus(dir: string, tid: string): Promise<string> {
  const { api_key } = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')) as { api_key: string };
  const res = await fetch(`${issuer.url}/api/v1/tickets/${tid}/status`, {
    headers: { authorization: `Bearer ${api_key}` },
  });
  assert.equal(res.status, 200);
  return ((await res.json()) as { status: string }).status;
}

/** The issuer's scan-log entry of one scan. */
async function logged(idempotencyKey: string) {
  return (await issuer.scans(eid)).find((s) => s.idempotency_key === idempotencyKey);
}

/** After sync the device keeps nothing queued and refused nothing: its story is the verdict it printed. */
function assertSettled(dir: string, result: { remaining: number; refused: number }) {
  assert.deepEqual([result.remaining, result.refused], [0, 0]);
  let refused = '';
  try {
    refused = readFileSync(join(dir, 'refused.jsonl'), 'utf8');
  } catch {
    // No refusal ever: no file.
  }
  assert.equal(refused, '');
}

before(async () => {
  issuer = await Issuer.start();
  eid = await issuer.createEvent('Turned away offline');
});

after(async () => {
  if (issuer.output.includes('ended unexpectedly')) process.stderr.write(issuer.output);
  await issuer.stop();
});

describe('a scan turned away offline never becomes a check-in', { concurrency: false }, () => {
  test('rotation: a ticket signed by a key the device has not synced is rejected offline; after sync it is still unused and an online scan admits it', async () => {
    const dir = await enrolled('rotation');
    await issuer.admin('POST', '/admin/v1/signing-keys/rotate');
    const [ticket] = await issuer.issue(eid, 1);
    const offline = await scan(dir, ticket!.token, true);
    assert.deepEqual([offline.verdict, offline.reason, offline.source], ['reject', 'invalid_signature', 'offline']);

    const result = await sync(dir);
    assert.equal(result.uploaded, 1);
    assert.equal(result.outcomes.invalid_signature, 1);
    assert.equal(result.outcomes.valid, 0);
    assertSettled(dir, result);
    assert.equal((await logged(offline.idempotency_key))?.outcome, 'invalid_signature');
    assert.equal(await ticketStatus(dir, ticket!.tid), 'valid');

    const online = await scan(dir, ticket!.token, false);
    assert.deepEqual([online.verdict, online.reason, online.source], ['admit', 'valid', 'issuer']);
    // The device synced the new key: offline it now admits tickets of the new key too.
    const [next] = await issuer.issue(eid, 1);
    assert.equal((await scan(dir, next!.token, true)).verdict, 'admit');
  });

  test('expired on a device whose clock runs 60 s fast, valid on the issuer (expiry not on a whole second): answered turned_away_offline, the ticket stays unused', async () => {
    const dir = await enrolled('skewed-clock');
    // The token's exp is the expiry rounded down to a second; the issuer keeps the exact instant.
    const expiresAt = Math.ceil(Date.now() / 1000) * 1000 + 60_000 + 900;
    const [ticket] = await issuer.issue(eid, 1, { expires_at: new Date(expiresAt).toISOString() });
    const skewed = new Date(Math.floor(expiresAt / 1000) * 1000 + 300);
    const scanner = await Scanner.open(await FsStorage.open(dir), { now: () => skewed });
    let verdict;
    try {
      [verdict] = await scanner.scan([ticket!.token], { offline: true });
    } finally {
      await scanner.close();
    }
    assert.deepEqual([verdict!.verdict, verdict!.reason], ['reject', 'expired']);

    const result = await sync(dir);
    assert.equal(result.uploaded, 1);
    assert.equal(result.outcomes.turned_away_offline, 1, JSON.stringify(result));
    assert.equal(result.outcomes.valid, 0);
    assertSettled(dir, result);
    assert.ok(await logged(verdict!.idempotency_key!), 'the attempt is in the scan log');
    assert.equal(await ticketStatus(dir, ticket!.tid), 'valid');
    assert.equal((await scan(dir, ticket!.token, false)).verdict, 'admit');
  });

  test('already_used on the device (it admitted the ticket earlier): the repeat is uploaded as turned away and the ticket is checked in once', async () => {
    const dir = await enrolled('repeat');
    const [ticket] = await issuer.issue(eid, 1);
    const first = await scan(dir, ticket!.token, true);
    const repeat = await scan(dir, ticket!.token, true);
    assert.deepEqual([first.verdict, repeat.verdict, repeat.reason], ['admit', 'reject', 'already_used']);
    const result = await sync(dir);
    assert.deepEqual([result.outcomes.valid, result.outcomes.already_used], [1, 1]);
    assertSettled(dir, result);
    assert.equal((await logged(repeat.idempotency_key))?.admitted_offline, false);
  });

  test('wrong_event: a genuine ticket of another event is rejected offline; after sync that ticket is still unused', async () => {
    // wrong_event and revoked cannot turn valid on the issuer (an event or a revocation does not
    // change back); this shows the upload leaves the other event's ticket alone.
    const dir = await enrolled('wrong-event');
    const other = await issuer.createEvent('Another event');
    const [foreign] = await issuer.issue(other, 1);
    const offline = await scan(dir, foreign!.token, true);
    assert.deepEqual([offline.verdict, offline.reason], ['reject', 'wrong_event']);
    const result = await sync(dir);
    assert.equal(result.outcomes.wrong_event, 1);
    assertSettled(dir, result);
    const ticket = await issuer.admin<{ checked_in_at: string | null }>('GET', `/admin/v1/tickets/${foreign!.tid}`);
    assert.equal(ticket.checked_in_at ?? null, null);
  });
});
