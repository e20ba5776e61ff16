import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from './cli-process.ts';
import { Issuer, tempDir } from './issuer.ts';

/** `ticket-scanner scan TOKEN --group` against a real issuer: the scanned ticket, then the rest of its order. */

let issuer: Issuer;
before(async () => {
  issuer = await Issuer.start();
});
after(async () => issuer?.stop());

const status = async (tid: string) =>
  (await issuer.admin<{ status: string }>('GET', `/admin/v1/tickets/${tid}`)).status;

test('--group checks in the scanned ticket’s whole order, one line each; a revoked member and another order stay out', async () => {
  const eid = await issuer.createEvent('Family night');
  const family = await issuer.issue(eid, 4, { order_ref: 'ORDER-17' });
  const [stranger] = await issuer.issue(eid, 1, { order_ref: 'ORDER-18' });
  await issuer.admin('POST', `/admin/v1/tickets/${family[3]!.tid}/revoke`, {});
  const dir = join(tempDir(), 'group');
  const enrolled = await runCli(['enroll', await issuer.setupUri(eid), '--state', dir, '--json']);
  assert.equal(enrolled.code, 0, enrolled.stderr);

  const run = await runCli(['scan', family[0]!.token, '--state', dir, '--group', '--json']);
  assert.equal(run.code, 0, run.stderr);
  const lines = run.json as unknown as { verdict: string; reason: string; tid: string }[];
  assert.deepEqual(
    lines.map((l) => [l.tid, l.verdict, l.reason]),
    // The scanned ticket first, then the rest of the order as the issuer lists a group (by tid).
    [family[0]!.tid, ...[family[1]!.tid, family[2]!.tid].sort()].map((tid) => [tid, 'admit', 'valid']),
  );
  assert.deepEqual(await Promise.all([...family.map((t) => status(t.tid)), status(stranger!.tid)]), [
    'checked_in',
    'checked_in',
    'checked_in',
    'revoked',
    'valid',
  ]);

  // Scanned again: the member is already inside, and nobody else is left to check in.
  const again = await runCli(['scan', family[1]!.token, '--state', dir, '--group']);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /^REJECT {2}already_used\s+\S+ {2}Holder 1 {2}\(issuer\)/);
  assert.equal(again.stdout.trim().split('\n').length, 1, again.stdout);
});
