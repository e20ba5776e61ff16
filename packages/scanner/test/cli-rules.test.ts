import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from './cli-process.ts';
import { Issuer, tempDir } from './issuer.ts';

let issuer: Issuer;
let eid: string;

/** A UTC date `days` from today ("YYYY-MM-DD"): the event's days are UTC days from midnight here. */
const utcDay = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

before(async () => {
  issuer = await Issuer.start();
  eid = await issuer.createEvent('Weekend festival');
  const declare = (type: string, rules: Record<string, unknown>) =>
    issuer.admin('PUT', `/admin/v1/events/${eid}/ticket-types/${encodeURIComponent(type)}`, rules);
  await declare('Day after', { valid_days: [utcDay(1)] });
  await declare('Wristband', { reentry: 'any', max_entries: 1 });
  await declare('Spa', { reentry: 'any', min_minutes_between_entries: 60 });
  await declare('Backstage', { attention: true, checkin_text: 'Check the photo ID' });
});
after(async () => issuer?.stop());

interface VerdictLine {
  verdict: string;
  reason: string;
  source: string;
  attention: boolean;
  checkin_texts: string[];
}

/** One scan with the CLI; the JSON line, or with `human` the printed line. */
async function scan(dir: string, token: string, options: { offline?: boolean } = {}) {
  const run = await runCli(['scan', token, '--state', dir, '--json', ...(options.offline ? ['--offline'] : [])]);
  assert.equal(run.code, 0, run.stderr);
  return run.json[0] as unknown as VerdictLine;
}

async function humanLine(dir: string, token: string): Promise<string> {
  const run = await runCli(['scan', token, '--state', dir, '--offline']);
  assert.equal(run.code, 0, run.stderr);
  return run.stdout.trim();
}

async function enrol(name: string): Promise<string> {
  const dir = join(tempDir(), name);
  const enrolled = await runCli(['enroll', await issuer.setupUri(eid), '--state', dir, '--json']);
  assert.equal(enrolled.code, 0, enrolled.stderr);
  assert.equal(enrolled.stderr, '', 'the first sync read the feed and the rules');
  return dir;
}

test('after one sync, the CLI applies the declared ticket types offline with the issuer’s reasons and notes', async () => {
  const [dayAfter] = await issuer.issue(eid, 1, { ticket_type: 'Day after' });
  const [wristband, usedBand] = await issuer.issue(eid, 2, { ticket_type: 'Wristband' });
  const [spa] = await issuer.issue(eid, 1, { ticket_type: 'Spa' });
  const [backstage] = await issuer.issue(eid, 1, { ticket_type: 'Backstage' });
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
  const [early] = await issuer.issue(eid, 1, { valid_from: tomorrow });
  const [noted] = await issuer.issue(eid, 1, { checkin_text: 'Wheelchair: use the ramp', attention: true });
  // Another gate let this wristband in: the device learns the entry from the feed.
  const elsewhere = await enrol('other-gate');
  assert.equal((await scan(elsewhere, usedBand!.token)).verdict, 'admit');

  const dir = await enrol('gate-phone');
  const notValid = await scan(dir, dayAfter!.token, { offline: true });
  assert.deepEqual([notValid.verdict, notValid.reason, notValid.source], ['reject', 'not_valid_now', 'offline']);
  assert.match(await humanLine(dir, dayAfter!.token), new RegExp(`^REJECT\\s+not_valid_now .*valid on ${utcDay(1)}`));
  assert.equal((await scan(dir, early!.token, { offline: true })).reason, 'not_valid_now', 'before its valid_from');

  assert.equal((await scan(dir, wristband!.token, { offline: true })).verdict, 'admit');
  assert.deepEqual(
    [(await scan(dir, wristband!.token, { offline: true })).reason],
    ['entry_limit_reached'],
    'a wristband inside may come in again (reentry any), up to its one entry',
  );
  assert.equal((await scan(dir, usedBand!.token, { offline: true })).reason, 'entry_limit_reached', 'the feed’s entry');

  assert.equal((await scan(dir, spa!.token, { offline: true })).verdict, 'admit');
  assert.match(
    await humanLine(dir, spa!.token),
    /^REJECT\s+too_soon .*too soon; last entry .*; next entry from \d{4}-/,
  );

  const flagged = await scan(dir, backstage!.token, { offline: true });
  assert.deepEqual(
    [flagged.verdict, flagged.attention, flagged.checkin_texts],
    ['admit', true, ['Check the photo ID']],
  );
  const ticketNotes = await scan(dir, noted!.token, { offline: true });
  assert.deepEqual(
    [ticketNotes.verdict, ticketNotes.attention, ticketNotes.checkin_texts],
    ['admit', true, ['Wheelchair: use the ramp']],
  );
  assert.match(await humanLine(dir, noted!.token), /^REJECT\s+already_used .*ATTENTION: Wheelchair: use the ramp$/);

  // A type declared since the last sync is unknown offline until the next one.
  await issuer.admin('PUT', `/admin/v1/events/${eid}/ticket-types/GA`, { valid_days: [utcDay(2)] });
  const [ga] = await issuer.issue(eid, 1, { ticket_type: 'GA' });
  assert.equal((await scan(dir, ga!.token, { offline: true })).verdict, 'admit');
  const synced = await runCli(['sync', '--state', dir, '--json']);
  assert.equal(synced.code, 0, synced.stderr);
  const [ga2] = await issuer.issue(eid, 1, { ticket_type: 'GA' });
  assert.equal((await scan(dir, ga2!.token, { offline: true })).reason, 'not_valid_now');

  // Online, the issuer's refusal (403 with details.reason) reads the same, with the notes.
  const online = await scan(dir, wristband!.token);
  assert.deepEqual([online.verdict, online.reason, online.source], ['reject', 'entry_limit_reached', 'issuer']);
  const onlineNotes = await scan(dir, backstage!.token);
  assert.deepEqual(
    [onlineNotes.reason, onlineNotes.source, onlineNotes.attention, onlineNotes.checkin_texts],
    ['already_used', 'issuer', true, ['Check the photo ID']],
  );
});
