import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type CliRun, runCli } from './cli-process.ts';
import { freePort, Issuer, tempDir } from './issuer.ts';

let issuer: Issuer;
let eid: string;
let tickets: { tid: string; token: string }[];
let state: string;
let apiKey: string;

/** A copy of the enrolled state (same scanner and key, its own queue and lock), so tests can run side by side. */
function copyState(): string {
  const dir = join(tempDir(), 'state');
  cpSync(state, dir, { recursive: true });
  return dir;
}

/** Every file of a state directory, by name. */
function stateFiles(dir: string): Map<string, string> {
  return new Map(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'utf8')]));
}

/** A failure is one line on stderr, prefixed, without a stack trace or the API key. */
function assertOneLineError(run: CliRun, code: number, pattern: RegExp): void {
  assert.equal(run.code, code, run.stderr);
  const lines = run.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0]!, /^ticket-scanner: /);
  assert.match(lines[0]!, pattern);
  assert.doesNotMatch(run.stderr, /\n\s+at /);
  if (apiKey) assert.ok(!run.stderr.includes(apiKey) && !run.stdout.includes(apiKey));
}

before(async () => {
  issuer = await Issuer.start();
  eid = await issuer.createEvent('CLI test event');
  tickets = await issuer.issue(eid, 8);
  state = join(tempDir(), 'state');
  const enrolled = await runCli(['enroll', await issuer.setupUri(eid), '--state', state, '--name', 'Gate A', '--json']);
  assert.equal(enrolled.code, 0, enrolled.stderr);
  apiKey = (JSON.parse(readFileSync(join(state, 'credentials.json'), 'utf8')) as { api_key: string }).api_key;
});

after(async () => {
  if (process.env.SHOW_ISSUER_LOG || issuer.output.includes('ended unexpectedly')) process.stderr.write(issuer.output);
  await issuer.stop();
});

describe('the ticket-scanner CLI', { concurrency: true }, () => {
  describe('enroll', { concurrency: true }, () => {
    test('prints the scanner, key id, event and gate; the API key lives only in credentials.json (0600), dir 0700', async () => {
      const dir = join(tempDir(), 'state');
      const run = await runCli(['enroll', await issuer.setupUri(eid, 'north'), '--state', dir, '--json']);
      assert.equal(run.code, 0, run.stderr);
      const [answer] = run.json;
      assert.deepEqual(Object.keys(answer!).sort(), ['api_key_id', 'eid', 'event_name', 'gate_id', 'scanner_id']);
      assert.equal(answer!.eid, eid);
      assert.equal(answer!.gate_id, 'north');
      assert.match(String(answer!.scanner_id), /^[0-9a-f-]{36}$/);
      assert.equal(statSync(dir).mode & 0o777, 0o700);
      assert.equal(statSync(join(dir, 'credentials.json')).mode & 0o777, 0o600);
      const key = (JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')) as { api_key: string }).api_key;
      assert.match(key, /^sk_live_/);
      assert.ok(!run.stdout.includes(key) && !run.stderr.includes(key));
      for (const [name, content] of stateFiles(dir)) {
        if (name !== 'credentials.json') assert.ok(!content.includes('sk_live_'), `${name} holds the API key`);
      }
    });

    test('a malformed setup URI is a usage error: exit 2, one line', async () => {
      const run = await runCli(['enroll', 'https://example.com/enroll?token=st_x', '--state', join(tempDir(), 's')]);
      assertOneLineError(run, 2, /setup URI/);
    });

    test('an unreachable issuer at enrolment: exit 1, one line', async () => {
      const closed = `http://127.0.0.1:${await freePort()}`;
      const uri = `ticket-issuer://enroll?${new URLSearchParams({ iss: closed, token: 'st_abcdefghijklmnop' })}`;
      const run = await runCli(['enroll', uri, '--state', join(tempDir(), 's')]);
      assertOneLineError(run, 1, /cannot reach the issuer/);
      assert.ok(!run.stderr.includes('st_abcdefghijklmnop'));
    });

    test('with queued scans, a setup code of another event is refused and the queue is kept (and a human line without --json)', async () => {
      const dir = copyState();
      const scan = await runCli(['scan', '--offline', '--state', dir, tickets[7]!.token]);
      assert.equal(scan.code, 0, scan.stderr);
      assert.match(scan.stdout, /^ADMIT\s+valid\s+\S+\s+\(offline\)\n$/, 'without --json: one short human line');
      const other = await issuer.createEvent('Another event for enrolment');
      const run = await runCli(['enroll', await issuer.setupUri(other), '--state', dir]);
      assertOneLineError(run, 1, /queued scan.*another event/);
      const status = await runCli(['status', '--state', dir, '--json']);
      assert.deepEqual([status.json[0]!.eid, status.json[0]!.queued], [eid, 1]);
    });
  });

  describe('scan', { concurrency: true }, () => {
    test('online: the issuer’s answer is the verdict, with the idempotency key of the scan', async () => {
      const run = await runCli(['scan', tickets[0]!.token, tickets[0]!.token, '--state', copyState(), '--json']);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(
        run.json.map((r) => [r.verdict, r.reason, r.tid, r.source]),
        [
          ['admit', 'valid', tickets[0]!.tid, 'issuer'],
          ['reject', 'already_used', tickets[0]!.tid, 'issuer'],
        ],
      );
      const logged = (await issuer.scans(eid)).map((s) => s.idempotency_key);
      for (const r of run.json) assert.ok(logged.includes(r.idempotency_key));
    });

    test('online: a genuine ticket of another event is wrong_event, not invalid_signature', async () => {
      const other = await issuer.createEvent('Another event');
      const [foreign] = await issuer.issue(other, 1);
      const run = await runCli(['scan', foreign!.token, '--state', copyState(), '--json']);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual([run.json[0]!.verdict, run.json[0]!.reason], ['reject', 'wrong_event']);
    });

    test('input that is not a JWS: reject invalid_signature, tid null, one stderr line naming it, exit 1', async () => {
      const run = await runCli(['scan', '--state', copyState(), '--json', '--offline'], {
        stdin: `${tickets[1]!.token}\nnot-a-ticket\n`,
      });
      assertOneLineError(run, 1, /input 2 is not a ticket token/);
      assert.deepEqual(run.json[1], {
        verdict: 'reject',
        reason: 'invalid_signature',
        tid: null,
        source: 'offline',
        idempotency_key: null,
        attention: false,
        checkin_texts: [],
      });
      assert.equal(run.json[0]!.verdict, 'admit');
    });
  });

  describe('status and bad input', { concurrency: true }, () => {
    test('status reports identity and counts as numbers', async () => {
      const run = await runCli(['status', '--state', state, '--json']);
      assert.equal(run.code, 0, run.stderr);
      const [status] = run.json;
      assert.equal(status!.issuer, issuer.url);
      assert.equal(status!.eid, eid);
      for (const field of ['queued', 'revoked_known', 'checked_in_known'])
        assert.equal(typeof status![field], 'number');
      // What the rules told at enrolment's sync: the issuer's undo window, and how far off this clock is.
      assert.equal(status!.annul_window_s, 900);
      assert.ok(typeof status!.clock_offset_s === 'number' && Math.abs(status!.clock_offset_s) <= 2);
      const line = await runCli(['status', '--state', state]);
      assert.match(line.stdout, /; undo within 900 s; clock (in step with|\d+ s (ahead of|behind)) the issuer's\n$/);
      assert.ok(
        'last_sync_at' in status! && 'api_key_id' in status! && 'scanner_id' in status! && 'gate_id' in status!,
      );
    });

    test('a corrupted state file: exit 1, one line naming the file', async () => {
      const dir = copyState();
      writeFileSync(join(dir, 'scanner.json'), '{"issuer": tru');
      assertOneLineError(await runCli(['scan', tickets[3]!.token, '--state', dir]), 1, /scanner\.json is corrupted/);
    });

    test('usage errors exit 2 with one line: unknown option, missing --state; --help exits 0', async () => {
      for (const args of [['scan', '--state', state, '--bogus'], ['sync']]) {
        assertOneLineError(await runCli(args), 2, /./);
      }
      const help = await runCli(['--help']);
      assert.equal(help.code, 0);
      assert.match(help.stdout, /Usage: ticket-scanner/);
    });

    test('the API key appears in no output and in no state file but credentials.json', async () => {
      const dir = copyState();
      const scans = await runCli(['scan', '--offline', '--state', dir, '--json', tickets[4]!.token, 'garbage']);
      const run = await runCli(['sync', '--state', dir, '--json']);
      assert.equal(run.code, 0, run.stderr);
      for (const output of [scans.stdout, scans.stderr, run.stdout, run.stderr]) assert.ok(!output.includes(apiKey));
      for (const [name, content] of stateFiles(dir)) {
        if (name !== 'credentials.json') assert.ok(!content.includes(apiKey), `${name} holds the API key`);
      }
    });
  });
});
