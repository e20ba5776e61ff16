import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from './cli-process.ts';
import { Issuer, tempDir } from './issuer.ts';

let issuer: Issuer;

before(async () => {
  issuer = await Issuer.start();
});
after(async () => issuer?.stop());

type Line = { verdict: string; reason: string; source: string };

async function enrolled(eid: string, name: string): Promise<string> {
  const dir = join(tempDir(), name);
  const run = await runCli(['enroll', await issuer.setupUri(eid), '--state', dir, '--json']);
  assert.equal(run.code, 0, run.stderr);
  return dir;
}

async function run(command: 'scan' | 'exit', dir: string, token: string, offline: boolean): Promise<Line> {
  const result = await runCli([command, token, '--state', dir, '--json', ...(offline ? ['--offline'] : [])]);
  assert.equal(result.code, 0, result.stderr);
  return result.json[0]! as Line;
}

const occupancy = (eid: string) =>
  issuer.admin<{ inside: number; entries: number; exits: number }>('GET', `/admin/v1/events/${eid}/occupancy`);

test('ticket-scanner exit lets a holder out online, and says not_inside for one who never came in', async () => {
  const eid = await issuer.createEvent('Exit night');
  const [inTicket, neverTicket] = await issuer.issue(eid, 2);
  const dir = await enrolled(eid, 'door');
  assert.equal((await run('scan', dir, inTicket!.token, false)).verdict, 'admit');
  const out = await run('exit', dir, inTicket!.token, false);
  assert.deepEqual([out.verdict, out.reason, out.source], ['exit', 'checked_out', 'issuer']);
  const never = await run('exit', dir, neverTicket!.token, false);
  assert.deepEqual([never.verdict, never.reason], ['reject', 'not_inside']);
  const reading = await occupancy(eid);
  assert.deepEqual([reading.inside, reading.entries, reading.exits], [0, 1, 1]);
});

test('offline exits are queued and counted at the next sync; the device knows who is not in', async () => {
  const eid = await issuer.createEvent('Offline exits');
  const [ticket, stranger] = await issuer.issue(eid, 2);
  const dir = await enrolled(eid, 'back-door');
  assert.equal((await run('scan', dir, ticket!.token, true)).verdict, 'admit');
  const out = await run('exit', dir, ticket!.token, true);
  assert.deepEqual([out.verdict, out.reason, out.source], ['exit', 'checked_out', 'offline']);
  const again = await run('exit', dir, ticket!.token, true);
  assert.deepEqual([again.verdict, again.reason], ['reject', 'not_inside'], 'already out on this device');
  assert.deepEqual((await run('exit', dir, stranger!.token, true)).reason, 'not_inside');

  const synced = await runCli(['sync', '--state', dir, '--json']);
  assert.equal(synced.code, 0, synced.stderr);
  const reading = await occupancy(eid);
  assert.deepEqual([reading.inside, reading.entries, reading.exits], [0, 1, 1], 'the entry went up before the exit');
});

test('with re-entry, an offline scanner lets a holder who went out in again after one sync', async () => {
  const eid = await issuer.createEvent('Re-entry festival');
  await issuer.admin('PATCH', `/admin/v1/events/${eid}`, { reentry: true });
  const [ticket] = await issuer.issue(eid, 1);
  const gateA = await enrolled(eid, 'gate-a');
  const gateB = await enrolled(eid, 'gate-b');
  // In and out at gate A, online.
  assert.equal((await run('scan', gateA, ticket!.token, false)).verdict, 'admit');
  assert.equal((await run('exit', gateA, ticket!.token, false)).verdict, 'exit');

  // Gate B syncs once (the feed: in, then out; the gates route: re-entry on), then works offline.
  assert.equal((await runCli(['sync', '--state', gateB, '--json'])).code, 0);
  const back = await run('scan', gateB, ticket!.token, true);
  assert.deepEqual([back.verdict, back.reason], ['admit', 'valid']);
  const twice = await run('scan', gateB, ticket!.token, true);
  assert.deepEqual([twice.verdict, twice.reason], ['reject', 'already_used'], 'inside again on this device');
  assert.equal((await runCli(['sync', '--state', gateB, '--json'])).code, 0);
  const reading = await occupancy(eid);
  assert.deepEqual([reading.inside, reading.entries, reading.exits], [1, 2, 1]);
});

test('the device remembers its own online exits: offline right after, it knows the holder is out', async () => {
  const eid = await issuer.createEvent('Own exits');
  await issuer.admin('PATCH', `/admin/v1/events/${eid}`, { reentry: true });
  const [ticket] = await issuer.issue(eid, 1);
  const dir = await enrolled(eid, 'side-door');
  assert.equal((await runCli(['sync', '--state', dir, '--json'])).code, 0);
  assert.equal((await run('scan', dir, ticket!.token, false)).verdict, 'admit');
  assert.equal((await run('exit', dir, ticket!.token, false)).reason, 'checked_out');
  // No sync since: the device knows from its own journal, not from the feed.
  const again = await run('exit', dir, ticket!.token, true);
  assert.deepEqual([again.verdict, again.reason], ['reject', 'not_inside']);
  const back = await run('scan', dir, ticket!.token, true);
  assert.deepEqual([back.verdict, back.reason], ['admit', 'valid'], 're-entry of a holder who went out here');
  assert.equal((await runCli(['sync', '--state', dir, '--json'])).code, 0);
  const reading = await occupancy(eid);
  assert.deepEqual([reading.inside, reading.entries, reading.exits], [1, 2, 1]);
  // After the sync the feed holds every move; the device still judges the same.
  const inside = await run('scan', dir, ticket!.token, true);
  assert.deepEqual([inside.verdict, inside.reason], ['reject', 'already_used']);
});
