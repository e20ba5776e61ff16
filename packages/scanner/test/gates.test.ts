import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from './cli-process.ts';
import { Issuer, tempDir } from './issuer.ts';

let issuer: Issuer;
let eid: string;

before(async () => {
  issuer = await Issuer.start();
  eid = await issuer.createEvent('Gated festival');
  await issuer.admin('PUT', `/admin/v1/events/${eid}/gates/vip`, { name: 'VIP entrance', admits: ['VIP'] });
  await issuer.admin('PUT', `/admin/v1/events/${eid}/gates/main`, { name: 'Main', admits: null });
});
after(async () => issuer?.stop());

async function scan(dir: string, token: string, gate: string, offline: boolean) {
  const run = await runCli([
    'scan',
    token,
    '--state',
    dir,
    '--gate',
    gate,
    '--json',
    ...(offline ? ['--offline'] : []),
  ]);
  assert.equal(run.code, 0, run.stderr);
  return run.json[0]! as { verdict: string; reason: string; source: string };
}

test('the CLI applies a declared gate’s ticket types offline after one sync, and online as the issuer does', async () => {
  const [ga] = await issuer.issue(eid, 1, { ticket_type: 'GA' });
  const [vip] = await issuer.issue(eid, 1, { ticket_type: 'VIP' });
  const dir = join(tempDir(), 'gate-phone');
  const enrolled = await runCli(['enroll', await issuer.setupUri(eid), '--state', dir, '--json']);
  assert.equal(enrolled.code, 0, enrolled.stderr);
  // Enrolment's first sync read the gates: the device refuses by type at once.
  assert.equal((await scan(dir, ga!.token, 'vip', true)).reason, 'ticket_type_not_admitted');

  // A gate declared since the last sync is unknown to the device: it cannot refuse by its types.
  await issuer.admin('PUT', `/admin/v1/events/${eid}/gates/lounge`, { name: 'Lounge', admits: ['VIP'] });
  const [ga1] = await issuer.issue(eid, 1, { ticket_type: 'GA' });
  assert.equal((await scan(dir, ga1!.token, 'lounge', true)).verdict, 'admit');

  const synced = await runCli(['sync', '--state', dir, '--json']);
  assert.equal(synced.code, 0, synced.stderr);

  const [ga2] = await issuer.issue(eid, 1, { ticket_type: 'GA' });
  assert.equal((await scan(dir, ga2!.token, 'lounge', true)).reason, 'ticket_type_not_admitted');
  const refused = await scan(dir, ga2!.token, 'vip', true);
  assert.deepEqual(
    [refused.verdict, refused.reason, refused.source],
    ['reject', 'ticket_type_not_admitted', 'offline'],
  );
  assert.equal((await scan(dir, vip!.token, 'vip', true)).verdict, 'admit');
  assert.equal((await scan(dir, ga2!.token, 'main', true)).verdict, 'admit', 'the main gate admits every type');

  // Online, the issuer's refusal carries the same reason.
  const [ga3] = await issuer.issue(eid, 1, { ticket_type: 'GA' });
  const online = await scan(dir, ga3!.token, 'vip', false);
  assert.deepEqual([online.verdict, online.reason, online.source], ['reject', 'ticket_type_not_admitted', 'issuer']);
});
