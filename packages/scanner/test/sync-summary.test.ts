import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from './cli-process.ts';
import { Issuer, tempDir } from './issuer.ts';

let issuer: Issuer;

before(async () => {
  issuer = await Issuer.start();
});

after(async () => {
  if (issuer.output.includes('ended unexpectedly')) process.stderr.write(issuer.output);
  await issuer.stop();
});

/** Valid only on a day long after this test: every scan today is `not_valid_now`. */
const LATER_ONLY = { valid_days: ['2031-01-01'] };

test('sync counts apart the refusals this device agreed with and the conflicts (holders it let in that the issuer refuses)', async () => {
  const eid = await issuer.createEvent('Sync summary');
  const [vip1, vip2] = await issuer.issue(eid, 2, { ticket_type: 'VIP' });
  const [ga] = await issuer.issue(eid, 1, { ticket_type: 'GA' });
  // GA is valid only later from the start: the device learns it at its enrolment.
  await issuer.admin('PUT', `/admin/v1/events/${eid}/ticket-types/GA`, LATER_ONLY);
  const dir = join(tempDir(), 'summary');
  const enrol = await runCli(['enroll', await issuer.setupUri(eid), '--state', dir, '--json']);
  assert.equal(enrol.code, 0, enrol.stderr);

  const scan = async (token: string) => {
    const run = await runCli(['scan', token, '--state', dir, '--offline', '--json']);
    assert.equal(run.code, 0, run.stderr);
    return run.json[0] as { verdict: string; reason: string };
  };
  // Offline: the VIPs go in (no rule known for them), the GA is turned away by the rule it knows.
  assert.equal((await scan(vip1!.token)).verdict, 'admit');
  assert.equal((await scan(vip2!.token)).verdict, 'admit');
  const turnedAway = await scan(ga!.token);
  assert.deepEqual([turnedAway.verdict, turnedAway.reason], ['reject', 'not_valid_now']);
  // Meanwhile the organizer makes VIP valid only later too: the issuer refuses the two admissions.
  await issuer.admin('PUT', `/admin/v1/events/${eid}/ticket-types/VIP`, LATER_ONLY);

  const json = await runCli(['sync', '--state', dir, '--json']);
  assert.equal(json.code, 0, json.stderr);
  const result = json.json[0] as { refused: number; refused_agreed: number; conflicts: number; remaining: number };
  // The GA turned away, the two VIPs let in: 3 refused, told apart.
  assert.deepEqual([result.refused, result.refused_agreed, result.conflicts, result.remaining], [3, 1, 2, 0]);
  // The issuer agrees on which are conflicts: both VIPs are in its conflicts report, the GA is not.
  const { conflicts } = await issuer.admin<{ conflicts: { tid: string }[] }>(
    'GET',
    `/admin/v1/events/${eid}/conflicts`,
  );
  assert.deepEqual(conflicts.map((c) => c.tid).sort(), [vip1!.tid, vip2!.tid].sort());
});

test('the human sync line says the refusals apart', async () => {
  const eid = await issuer.createEvent('Sync summary words');
  const [vip] = await issuer.issue(eid, 1, { ticket_type: 'VIP' });
  const [ga] = await issuer.issue(eid, 1, { ticket_type: 'GA' });
  await issuer.admin('PUT', `/admin/v1/events/${eid}/ticket-types/GA`, LATER_ONLY);
  const dir = join(tempDir(), 'summary-words');
  assert.equal((await runCli(['enroll', await issuer.setupUri(eid), '--state', dir, '--json'])).code, 0);
  for (const token of [vip!.token, ga!.token]) {
    assert.equal((await runCli(['scan', token, '--state', dir, '--offline'])).code, 0);
  }
  await issuer.admin('PUT', `/admin/v1/events/${eid}/ticket-types/VIP`, LATER_ONLY);
  const run = await runCli(['sync', '--state', dir]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stdout,
    /^Uploaded 0, refused 2 \(1 turned away here too, 1 conflict \(let in here\)\), remaining 0;/,
  );
});
