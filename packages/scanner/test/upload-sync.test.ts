import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from './cli-process.ts';
import { ADMIN_TOKEN, Issuer, tempDir } from './issuer.ts';

let issuer: Issuer;

before(async () => {
  // Five check-in requests a minute: a queue of 1,300 scans sent one request each would wait for minutes.
  issuer = await Issuer.start({ RATE_LIMIT_CHECKIN_PER_KEY: '5' });
});
after(async () => {
  if (issuer.output.includes('ended unexpectedly')) process.stderr.write(issuer.output);
  await issuer?.stop();
});

/** How many requests the issuer answered on a route, by its own metrics. */
async function requests(route: string): Promise<number> {
  const res = await fetch(`${issuer.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const text = await res.text();
  let count = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('issuer_http_request_duration_seconds_count{') && line.includes(`route="${route}"`)) {
      count += Number(line.split(' ').pop());
    }
  }
  return count;
}

test('ticket-scanner sync sends a queue of entries and exits in uploads of up to 500 scans, each ticket in scan order', async () => {
  const eid = await issuer.createEvent('Upload night');
  const tickets = await issuer.issue(eid, 1200);
  const dir = join(tempDir(), 'state');
  const enrolled = await runCli(['enroll', await issuer.setupUri(eid), '--state', dir, '--json']);
  assert.equal(enrolled.code, 0, enrolled.stderr);

  const scan = await runCli(['scan', '--offline', '--state', dir, '--json'], {
    stdin: tickets.map((t) => t.token).join('\n'),
    timeoutMs: 120_000,
  });
  assert.equal(scan.json.filter((line) => line.verdict === 'admit').length, 1200, scan.stderr);
  const exits = await runCli(['exit', '--offline', '--state', dir, '--json'], {
    stdin: tickets
      .slice(0, 100)
      .map((t) => t.token)
      .join('\n'),
  });
  assert.equal(exits.json.filter((line) => line.verdict === 'exit').length, 100, exits.stderr);

  const sync = await runCli(['sync', '--state', dir, '--json'], { timeoutMs: 120_000 });
  assert.equal(sync.code, 0, `sync exited ${sync.code}: ${sync.stdout} ${sync.stderr}`);
  const report = sync.json[0] as {
    uploaded: number;
    remaining: number;
    refused: number;
    outcomes: Record<string, number>;
  };
  assert.deepEqual([report.uploaded, report.remaining, report.refused], [1300, 0, 0]);
  assert.deepEqual(
    [report.outcomes.valid, report.outcomes.checked_out, report.outcomes.not_inside ?? 0],
    [1200, 100, 0],
  );

  assert.equal(await requests('/api/v1/tickets/scans'), 3, 'three uploads');
  assert.equal(await requests('/api/v1/tickets/check-in'), 0, 'no check-in alone');
  assert.equal(await requests('/api/v1/tickets/check-out'), 0, 'no check-out alone');

  // The issuer applied each ticket's entry before its exit.
  const log = await issuer.scans(eid);
  assert.equal(log.length, 1300);
  for (const ticket of tickets.slice(0, 100)) {
    assert.deepEqual(
      log.filter((s) => s.tid === ticket.tid).map((s) => s.outcome),
      ['valid', 'checked_out'],
    );
  }
  const occupancy = await issuer.admin<{ inside: number; entries: number; exits: number }>(
    'GET',
    `/admin/v1/events/${eid}/occupancy`,
  );
  assert.deepEqual([occupancy.inside, occupancy.entries, occupancy.exits], [1100, 1200, 100]);

  // Nothing is left: a second sync uploads nothing.
  const again = await runCli(['sync', '--state', dir, '--json']);
  assert.equal(again.code, 0, again.stderr);
  assert.equal((again.json[0] as { uploaded: number }).uploaded, 0);
  assert.equal(await requests('/api/v1/tickets/scans'), 3);
});
