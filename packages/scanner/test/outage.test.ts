import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { LiveCli, runCli } from './cli-process.ts';
import { Issuer, tempDir } from './issuer.ts';

const started: Issuer[] = [];
after(async () => {
  for (const issuer of started) {
    if (issuer.output.includes('ended unexpectedly')) process.stderr.write(issuer.output);
    await issuer.stop();
  }
});

/** An issuer with an event, tickets and one enrolled scanner state. */
async function setup(env: Record<string, string> = {}, count = 3) {
  const issuer = await Issuer.start(env);
  started.push(issuer);
  const eid = await issuer.createEvent('Outage test event');
  const tickets = await issuer.issue(eid, count);
  const dir = join(tempDir(), 'state');
  const run = await runCli(['enroll', await issuer.setupUri(eid), '--state', dir, '--json']);
  assert.equal(run.code, 0, run.stderr);
  return { issuer, eid, tickets, dir };
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = Date.now();
  const value = await run();
  return { value, ms: Date.now() - start };
}

// Independent issuers, run side by side: most of each test is waiting (back-off, a paused issuer, a rate window).
describe('when the issuer is down, slow or busy', { concurrency: true }, () => {
  test('an online scan falls back to the offline verdict at once; sync exits 3 within seconds, then 0 once the issuer is back', async () => {
    const { issuer, eid, tickets, dir } = await setup();
    const cli = new LiveCli(['scan', '--state', dir, '--json']);
    assert.equal((await cli.scan(tickets[0]!.token)).verdict.source, 'issuer');
    await issuer.stop();
    const down = await cli.scan(tickets[1]!.token);
    assert.deepEqual([down.verdict.verdict, down.verdict.reason, down.verdict.source], ['admit', 'valid', 'offline']);
    assert.ok(down.ms < 2000, `a refused connection took ${down.ms} ms to fall back`);
    assert.equal(await cli.end(), 0);

    const sync = await timed(() => runCli(['sync', '--state', dir, '--json']));
    assert.equal(sync.value.code, 3, sync.value.stderr);
    assert.ok(sync.ms < 10_000, `sync against a dead issuer took ${sync.ms} ms`);
    assert.equal(sync.value.json[0]!.remaining, 1);
    assert.equal(sync.value.stderr.trimEnd().split('\n').length, 1);
    assert.doesNotMatch(sync.value.stderr, /\n\s+at /);

    await issuer.restart();
    const up = await runCli(['sync', '--state', dir, '--json']);
    assert.equal(up.code, 0, up.stderr);
    assert.deepEqual([up.json[0]!.uploaded, up.json[0]!.remaining, up.json[0]!.refused], [1, 0, 0]);
    const logged = await issuer.scans(eid);
    const entry = logged.find((s) => s.idempotency_key === down.verdict.idempotency_key);
    assert.equal(entry?.outcome, 'valid');
  });

  test('an issuer that takes the request but does not answer within 3 s: offline verdict after 3 s; after sync nothing is refused and the check-in counts once', async () => {
    const { issuer, eid, tickets, dir } = await setup();
    const cli = new LiveCli(['scan', '--state', dir, '--json']);
    assert.equal((await cli.scan(tickets[0]!.token)).verdict.source, 'issuer');
    process.kill(issuer.pid, 'SIGSTOP');
    let paused;
    try {
      paused = await cli.scan(tickets[1]!.token);
    } finally {
      process.kill(issuer.pid, 'SIGCONT');
    }
    assert.equal(await cli.end(), 0);
    assert.deepEqual([paused.verdict.verdict, paused.verdict.source], ['admit', 'offline']);
    assert.ok(paused.ms >= 2900 && paused.ms < 6000, `the fallback took ${paused.ms} ms`);
    // The resumed issuer processes the request it held (without admitted_offline) before the sync.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const sync = await runCli(['sync', '--state', dir, '--json']);
    assert.equal(sync.code, 0, sync.stderr);
    assert.deepEqual([sync.json[0]!.uploaded, sync.json[0]!.refused], [1, 0]);
    assert.deepEqual(sync.json[0]!.outcomes, { ...zeroOutcomes(), valid: 1 });
    assert.equal((await issuer.counters(eid)).checked_in, 2);
    // The held plain request was valid; the queued body (admitted_offline) met 409 and was resent plain: a
    // replay, which writes no line of its own.
    const log = (await issuer.scans(eid)).filter((s) => s.idempotency_key === paused.verdict.idempotency_key);
    assert.deepEqual(
      log.map((s) => [s.outcome, s.replay]),
      [
        ['valid', false],
        ['idempotency_conflict', false],
      ],
    );
  });

  test('429 with Retry-After during sync: nothing refused, nothing lost, everything uploaded', async () => {
    // Three uploads of at most 500 scans, one request a second: the second and the third meet 429.
    const count = 1100;
    const { issuer, eid, tickets, dir } = await setup(
      { RATE_LIMIT_CHECKIN_PER_KEY: '1', RATE_LIMIT_WINDOW_S: '1' },
      count,
    );
    const scanned = await runCli(['scan', '--offline', '--state', dir, '--json'], {
      stdin: tickets.map((t) => t.token).join('\n'),
    });
    assert.equal(scanned.code, 0, scanned.stderr);
    const sync = await timed(() => runCli(['sync', '--state', dir, '--json']));
    assert.equal(sync.value.code, 0, sync.value.stderr);
    assert.deepEqual(
      [sync.value.json[0]!.uploaded, sync.value.json[0]!.refused, sync.value.json[0]!.remaining],
      [count, 0, 0],
    );
    assert.ok(sync.ms >= 1500, `three uploads at one per second cannot take ${sync.ms} ms: no 429 was met`);
    const valid = (await issuer.scans(eid)).filter((s) => s.outcome === 'valid').map((s) => s.idempotency_key);
    for (const verdict of scanned.json) assert.ok(valid.includes(verdict.idempotency_key));
  });
});

function zeroOutcomes() {
  return {
    valid: 0,
    already_used: 0,
    revoked: 0,
    wrong_event: 0,
    expired: 0,
    invalid_signature: 0,
    turned_away_offline: 0,
  };
}
