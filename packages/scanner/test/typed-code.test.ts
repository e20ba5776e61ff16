/**
 * Short codes typed where a token goes, and a group checked in through the queue, against a real
 * issuer: online (resolved by the issuer), offline by the roster or by the digests, an unknown code
 * answered as an unknown ticket; a group offline with one member left out and one revoked.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { othersToCheckIn } from '../src/index.ts';
import { runCli } from './cli-process.ts';
import { Issuer, tempDir } from './issuer.ts';
import { linkedDevice } from './linked-device.ts';

let issuer: Issuer;
before(async () => {
  issuer = await Issuer.start();
});
after(async () => issuer?.stop());

/** Tickets with their short codes (`XXXXX-XXXXX`). */
async function issue(eid: string, tickets: Record<string, unknown>[]) {
  const answer = await issuer.admin<{ tickets: { tid: string; short_code: string; ticket_token: string }[] }>(
    'POST',
    `/admin/v1/events/${eid}/tickets`,
    { tickets: tickets.map((t, i) => ({ holder_name: `Holder ${i}`, ticket_type: 'GA', ...t })) },
  );
  return answer.tickets;
}

const device = (eid: string, token: Record<string, unknown>) => linkedDevice(issuer, eid, token);

const status = async (tid: string) =>
  (await issuer.admin<{ status: string }>('GET', `/admin/v1/tickets/${tid}`)).status;
const brief = (r: { verdict: string; reason: string; tid: string | null; source: string }) => [
  r.verdict,
  r.reason,
  r.tid,
  r.source,
];

test('a typed short code online: resolved by the issuer, checked in by its tid; an unknown code is an unknown ticket', async () => {
  const eid = await issuer.createEvent('Typed online');
  const [ada] = await issue(eid, [{ holder_name: 'Ada Lovelace' }]);
  const { scanner } = await device(eid, {});
  try {
    const typed = ` ${ada!.short_code.toLowerCase().replace('-', ' ')} `;
    const [result] = await scanner.scan([typed]);
    assert.deepEqual(brief(result!), ['admit', 'valid', ada!.tid, 'issuer']);
    assert.equal(result!.ticket?.holder_name, 'Ada Lovelace');
    assert.equal(await status(ada!.tid), 'checked_in');
    const [twice] = await scanner.scan([ada!.short_code]);
    assert.deepEqual(brief(twice!), ['reject', 'already_used', ada!.tid, 'issuer']);
    const [unknown] = await scanner.scan(['ZZZZZ-ZZZZZ']);
    assert.deepEqual(brief(unknown!), ['reject', 'NOT_FOUND', null, 'issuer']);
    assert.equal(scanner.queue.size, 0, 'nothing queued');
  } finally {
    await scanner.close();
  }
});

test('a typed short code offline: by the roster for a key that may search, by the digests for one that may not', async () => {
  const eid = await issuer.createEvent('Typed offline');
  const [ada, alan, grace] = await issue(eid, [
    { holder_name: 'Ada' },
    { holder_name: 'Alan' },
    { holder_name: 'Grace' },
  ]);
  await issuer.admin('POST', `/admin/v1/tickets/${grace!.tid}/revoke`, {});
  const search = await device(eid, { allow_search: true });
  const plain = await device(eid, {});
  try {
    search.link.down = true;
    const [byRoster, revoked, unknown] = await search.scanner.scan([ada!.short_code, grace!.short_code, 'ZZZZZ-ZZZZZ']);
    assert.deepEqual(brief(byRoster!), ['admit', 'valid', ada!.tid, 'offline']);
    assert.equal(byRoster!.ticket?.holder_name, 'Ada');
    assert.deepEqual(brief(revoked!), ['reject', 'revoked', grace!.tid, 'offline']);
    assert.deepEqual(brief(unknown!), ['reject', 'NOT_FOUND', null, 'offline']);
    const [byDigest] = await plain.scanner.scan([alan!.short_code.toLowerCase()], { offline: true });
    assert.deepEqual(brief(byDigest!), ['admit', 'valid', alan!.tid, 'offline']);
    const [again] = await plain.scanner.scan([alan!.short_code], { offline: true });
    assert.deepEqual(brief(again!), ['reject', 'already_used', alan!.tid, 'offline']);
    search.link.down = false;
    await search.scanner.sync();
    await plain.scanner.sync();
    assert.deepEqual([await status(ada!.tid), await status(alan!.tid)], ['checked_in', 'checked_in']);
  } finally {
    await search.scanner.close();
    await plain.scanner.close();
  }
});

test('a group offline: the chosen members queued, each judged on its own (a revoked one refused), sent by the next sync', async () => {
  const eid = await issuer.createEvent('Family offline');
  const family = await issue(
    eid,
    [0, 1, 2, 3].map(() => ({ order_ref: 'ORDER-5' })),
  );
  const { scanner, link } = await device(eid, { allow_search: true });
  try {
    await issuer.admin('POST', `/admin/v1/tickets/${family[3]!.tid}/revoke`, {});
    await scanner.sync();
    link.down = true;
    const [first] = await scanner.scan([family[0]!.ticket_token]);
    assert.deepEqual(brief(first!), ['admit', 'valid', family[0]!.tid, 'offline']);
    const group = await scanner.group(family[0]!.tid);
    assert.equal(group.source, 'roster');
    const expected = family.map((t, i) => [t.tid, i === 3 ? 'revoked' : i === 0 ? 'checked_in' : 'valid', i === 0]);
    assert.deepEqual(
      group.tickets.map((t) => [t.tid, t.status, t.inside]),
      [expected[0], ...expected.slice(1).sort((a, b) => (a[0]! < b[0]! ? -1 : 1))],
      'the asked ticket first, then the order by tid',
    );
    assert.equal(othersToCheckIn(group, family[0]!.tid).length, 2, 'the revoked member is not offered');
    // Staff leave member 2 out; member 3 is passed anyway, and the rules refuse it on its own.
    const chosen = group.tickets.filter((t) => t.tid === family[1]!.tid || t.tid === family[3]!.tid);
    const results = await scanner.checkInGroup(chosen);
    assert.deepEqual(
      results.map(brief),
      [
        ['admit', 'valid', family[1]!.tid, 'offline'],
        ['reject', 'revoked', family[3]!.tid, 'offline'],
      ].sort((a, b) => (a[2]! < b[2]! ? -1 : 1)),
    );
    assert.equal(scanner.queue.size, 3, 'the scan and two members, queued');
    link.down = false;
    const synced = await scanner.sync();
    assert.equal(synced.remaining, 0);
    assert.deepEqual(await Promise.all(family.map((t) => status(t.tid))), [
      'checked_in',
      'checked_in',
      'valid',
      'revoked',
    ]);
  } finally {
    await scanner.close();
  }
});

test('ticket-scanner scan CODE --offline --group: the code by the roster, then the rest of the order', async () => {
  const eid = await issuer.createEvent('CLI family');
  const family = await issue(
    eid,
    [0, 1, 2].map(() => ({ order_ref: 'ORDER-9' })),
  );
  const dir = tempDir('typed-');
  const uri = (
    await issuer.admin<{ setup_uri: string }>('POST', `/admin/v1/events/${eid}/enrollment-tokens`, {
      allow_search: true,
    })
  ).setup_uri;
  assert.equal((await runCli(['enroll', uri, '--state', dir])).code, 0);
  const run = await runCli([
    'scan',
    family[0]!.short_code.toLowerCase(),
    '--state',
    dir,
    '--offline',
    '--group',
    '--json',
  ]);
  assert.equal(run.code, 0, run.stderr);
  const lines = run.json as unknown as { verdict: string; tid: string }[];
  assert.deepEqual(
    lines.map((l) => [l.tid, l.verdict]),
    [family[0]!.tid, ...[family[1]!.tid, family[2]!.tid].sort()].map((tid) => [tid, 'admit']),
  );
  assert.equal((await runCli(['sync', '--state', dir])).code, 0);
  assert.deepEqual(await Promise.all(family.map((t) => status(t.tid))), ['checked_in', 'checked_in', 'checked_in']);
  const unknown = await runCli(['scan', 'ZZZZZ-ZZZZZ', '--state', dir, '--offline', '--json']);
  assert.equal((unknown.json as unknown as { reason: string }[])[0]!.reason, 'NOT_FOUND');
});
