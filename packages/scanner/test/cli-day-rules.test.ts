import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from './cli-process.ts';
import { Issuer, tempDir } from './issuer.ts';

/**
 * The rules that count event days, end to end: a real issuer, the CLI enrolled and synced, the same
 * answers offline as online. Events here are in UTC with days from midnight.
 */
let issuer: Issuer;
before(async () => {
  issuer = await Issuer.start();
});
after(async () => issuer?.stop());

const HOUR = 3_600_000;
const utcDay = (at: number) => new Date(at).toISOString().slice(0, 10);

interface VerdictLine {
  verdict: string;
  reason: string;
  source: string;
}

async function enrol(eid: string, name: string): Promise<string> {
  const dir = join(tempDir(), name);
  const enrolled = await runCli(['enroll', await issuer.setupUri(eid), '--state', dir, '--json']);
  assert.equal(enrolled.code, 0, enrolled.stderr);
  return dir;
}

async function scan(dir: string, token: string, offline: boolean): Promise<VerdictLine> {
  const run = await runCli(['scan', token, '--state', dir, '--json', ...(offline ? ['--offline'] : [])]);
  assert.equal(run.code, 0, run.stderr);
  return run.json[0] as unknown as VerdictLine;
}

async function humanLine(dir: string, token: string): Promise<string> {
  const run = await runCli(['scan', token, '--state', dir, '--offline']);
  assert.equal(run.code, 0, run.stderr);
  return run.stdout.trim();
}

test('an event whose days have not begun: not valid now offline and online, the line naming its days', async () => {
  const first = Date.now() + 2 * 24 * HOUR;
  const { eid } = await issuer.admin<{ eid: string }>('POST', '/admin/v1/events', {
    name: 'Later',
    event_date: new Date(first).toISOString(),
    ends_at: new Date(first + 24 * HOUR).toISOString(),
  });
  const [ticket] = await issuer.issue(eid, 1);
  const dir = await enrol(eid, 'later-gate');
  const offline = await scan(dir, ticket!.token, true);
  assert.deepEqual([offline.verdict, offline.reason, offline.source], ['reject', 'not_valid_now', 'offline']);
  const days = `${utcDay(first)} to ${utcDay(first + 24 * HOUR)}`;
  assert.match(
    await humanLine(dir, ticket!.token),
    new RegExp(`^REJECT\\s+not_valid_now .*valid on the event's days, ${days}`),
  );
  const online = await scan(dir, ticket!.token, false);
  assert.deepEqual([online.reason, online.source], ['not_valid_now', 'issuer']);
});

test('one day only: an entry yesterday (from the feed) refuses a first entry today, offline and online', async () => {
  const eid = await issuer.createEvent('One day of two');
  await issuer.admin('PUT', `/admin/v1/events/${eid}/ticket-types/GA`, { reentry: 'any', max_days: 1 });
  const [ticket] = await issuer.issue(eid, 1);
  // Another gate let the holder in 30 hours ago (a scan uploaded late): always another UTC day.
  const setup = new URL((await issuer.setupUri(eid)).replace('ticket-issuer://', 'http://x/'));
  const scannerId = randomUUID();
  const enrolled = await fetch(`${issuer.url}/api/v1/scanners/enroll`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: setup.searchParams.get('token'), scanner_id: scannerId, scanner_name: 'North' }),
  });
  const { api_key: apiKey } = (await enrolled.json()) as { api_key: string };
  const entry = await fetch(`${issuer.url}/api/v1/tickets/check-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({
      tid: ticket!.tid,
      eid,
      scanned_at: new Date(Date.now() - 30 * HOUR).toISOString(),
      scanner_id: scannerId,
      idempotency_key: randomUUID(),
    }),
  });
  assert.equal(((await entry.json()) as { status: string }).status, 'valid');

  const dir = await enrol(eid, 'today-gate');
  const offline = await scan(dir, ticket!.token, true);
  assert.deepEqual([offline.verdict, offline.reason], ['reject', 'entry_limit_reached']);
  assert.match(await humanLine(dir, ticket!.token), /entry limit reached; 1 of 1 days used/);
  const online = await scan(dir, ticket!.token, false);
  assert.deepEqual([online.reason, online.source], ['entry_limit_reached', 'issuer']);
});
