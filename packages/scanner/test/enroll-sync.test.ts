import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli } from './cli-process.ts';
import { Issuer, tempDir } from './issuer.ts';

/**
 * A proxy in front of the issuer, whose address is the issuer's BASE_URL: it passes every request on,
 * except the rules route (and the gates route older scanners read) while `failGates` is set (503, as
 * an overloaded instance would answer).
 */
class GatesProxy {
  failGates = false;
  target = 0;
  private constructor(readonly server: Server) {}

  static async start(): Promise<GatesProxy> {
    const proxy: GatesProxy = new GatesProxy(
      createServer((req, res) => {
        if (proxy.failGates && /\/(gates|rules)$/.test(req.url ?? '')) {
          res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
          res.end(JSON.stringify({ error: { code: 'UNAVAILABLE', message: 'try again', details: {} } }));
          return;
        }
        const upstream = request(
          { host: '127.0.0.1', port: proxy.target, path: req.url, method: req.method, headers: req.headers },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on('error', () => res.destroy());
        req.pipe(upstream);
      }),
    );
    proxy.server.listen(0, '127.0.0.1');
    await once(proxy.server, 'listening');
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }
}

let proxy: GatesProxy;
let issuer: Issuer;
let eid: string;
let tickets: { tid: string; token: string }[];

before(async () => {
  proxy = await GatesProxy.start();
  issuer = await Issuer.start({ BASE_URL: proxy.url });
  proxy.target = issuer.port;
  eid = await issuer.createEvent('First sync event');
  tickets = await issuer.issue(eid, 6);
  // Before any scanner below enrols: one ticket revoked, one checked in at another gate.
  await issuer.admin('POST', `/admin/v1/tickets/${tickets[0]!.tid}/revoke`, { reason: 'refunded' });
  const other = join(tempDir(), 'other-gate');
  assert.equal((await runCli(['enroll', await issuer.setupUri(eid, 'south'), '--state', other])).code, 0);
  const inside = await runCli(['scan', tickets[1]!.token, '--state', other, '--json']);
  assert.equal(inside.json[0]!.reason, 'valid', inside.stderr);
});

after(async () => {
  if (issuer?.output.includes('ended unexpectedly')) process.stderr.write(issuer.output);
  await issuer?.stop();
  proxy?.server.close();
});

const offlineVerdicts = async (dir: string) => {
  const run = await runCli([
    'scan',
    '--offline',
    '--state',
    dir,
    '--json',
    tickets[0]!.token,
    tickets[1]!.token,
    tickets[2]!.token,
  ]);
  assert.equal(run.code, 0, run.stderr);
  return run.json;
};

describe('enrolment ends with a first sync', () => {
  test('enroll then scan --offline: the revoked ticket and the one already inside are turned away', async () => {
    const dir = join(tempDir(), 'north');
    const enrolled = await runCli(['enroll', await issuer.setupUri(eid, 'north'), '--state', dir, '--json']);
    assert.equal(enrolled.code, 0, enrolled.stderr);
    assert.equal(enrolled.stderr, '');
    assert.deepEqual(Object.keys(enrolled.json[0]!).sort(), [
      'api_key_id',
      'eid',
      'event_name',
      'gate_id',
      'scanner_id',
    ]);
    const status = await runCli(['status', '--state', dir, '--json']);
    assert.notEqual(status.json[0]!.last_sync_at, null);
    assert.deepEqual([status.json[0]!.revoked_known, status.json[0]!.checked_in_known], [1, 1]);

    const verdicts = await offlineVerdicts(dir);
    assert.deepEqual(
      verdicts.map((v) => [v.verdict, v.reason, v.source]),
      [
        ['reject', 'revoked', 'offline'],
        ['reject', 'already_used', 'offline'],
        ['admit', 'valid', 'offline'],
      ],
    );
    for (const verdict of verdicts) assert.equal('synced' in verdict, false, 'a synced scanner says nothing more');
  });

  test('a first sync that fails keeps the enrolment: exit 0, one stderr line, and `"synced": false` on offline verdicts until a sync', async () => {
    const dir = join(tempDir(), 'east');
    proxy.failGates = true;
    let enrolled;
    try {
      enrolled = await runCli(['enroll', await issuer.setupUri(eid, 'east'), '--state', dir, '--json']);
    } finally {
      proxy.failGates = false;
    }
    assert.equal(enrolled.code, 0, enrolled.stderr);
    assert.deepEqual(Object.keys(enrolled.json[0]!).sort(), [
      'api_key_id',
      'eid',
      'event_name',
      'gate_id',
      'scanner_id',
    ]);
    const lines = enrolled.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, enrolled.stderr);
    assert.match(lines[0]!, /^ticket-scanner: enrolled, but the first sync failed .*ticket-scanner sync/);

    const before = await offlineVerdicts(dir);
    assert.deepEqual(
      before.map((v) => v.synced),
      [false, false, false],
    );
    const online = await runCli(['scan', tickets[3]!.token, '--state', dir, '--json']);
    assert.deepEqual([online.json[0]!.source, 'synced' in online.json[0]!], ['issuer', false], 'the issuer decided');

    const sync = await runCli(['sync', '--state', dir, '--json']);
    assert.equal(sync.code, 0, sync.stderr);
    const after = await runCli(['scan', '--offline', '--state', dir, '--json', tickets[4]!.token]);
    assert.deepEqual([after.json[0]!.verdict, 'synced' in after.json[0]!], ['admit', false]);
  });
});
