/**
 * A code known by its digest alone (a key without `allow_search`) is judged by its ticket's type, as
 * the codes list tells it: a gate admitting some types and a type's hours refuse it offline as the
 * issuer does. Digests kept without a type (an older issuer's) are read again from the start, once;
 * until then, or if the issuer still tells no type, the device does not decide where a type matters.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { JOURNALS, KeptRoster, Scanner } from '../src/index.ts';
import { Issuer } from './issuer.ts';
import { linkedDevice, ONCE } from './linked-device.ts';

let issuer: Issuer;
before(async () => {
  issuer = await Issuer.start();
});
after(async () => issuer?.stop());

async function issue(eid: string, types: string[]) {
  const answer = await issuer.admin<{ tickets: { tid: string; short_code: string; ticket_token: string }[] }>(
    'POST',
    `/admin/v1/events/${eid}/tickets`,
    { tickets: types.map((ticket_type, i) => ({ holder_name: `Holder ${i}`, ticket_type })) },
  );
  return answer.tickets;
}

const brief = (r: { verdict: string; reason: string; tid: string | null }) => [r.verdict, r.reason, r.tid];
const status = async (tid: string) =>
  (await issuer.admin<{ status: string }>('GET', `/admin/v1/tickets/${tid}`)).status;

test('a code known by digest is judged by its type: a VIP gate refuses GA offline, admits VIP, and the issuer agrees', async () => {
  const eid = await issuer.createEvent('Typed digests');
  await issuer.admin('PUT', `/admin/v1/events/${eid}/gates/vip`, { name: 'VIP', admits: ['VIP'] });
  const [ga, vip] = await issue(eid, ['GA', 'VIP']);
  const { scanner } = await linkedDevice(issuer, eid, {});
  try {
    assert.equal(await scanner.rosterKind(), 'codes');
    const [refused, admitted] = await scanner.scan([ga!.short_code, vip!.short_code.toLowerCase()], {
      offline: true,
      gate: 'vip',
    });
    assert.deepEqual(brief(refused!), ['reject', 'ticket_type_not_admitted', ga!.tid]);
    assert.equal(refused!.ticket?.ticket_type, 'GA');
    assert.deepEqual(brief(admitted!), ['admit', 'valid', vip!.tid]);
    await scanner.sync();
    assert.deepEqual([await status(ga!.tid), await status(vip!.tid)], ['valid', 'checked_in']);
    // The issuer's own answer for the GA ticket at that gate is the device's.
    const [online] = await scanner.scan([ga!.short_code], { gate: 'vip' });
    assert.deepEqual(brief(online!), ['reject', 'ticket_type_not_admitted', ga!.tid]);
  } finally {
    await scanner.close();
  }
});

test('digests kept without a type: not judged where types matter, read again from the start once at the next sync', async () => {
  const eid = await issuer.createEvent('Untyped digests');
  await issuer.admin('PUT', `/admin/v1/events/${eid}/gates/vip`, { name: 'VIP', admits: ['VIP'] });
  const [ga] = await issue(eid, ['GA']);
  const first = await linkedDevice(issuer, eid, {});
  await first.scanner.close();
  // The journal as an issuer older than the field left it: the same lines and cursor, no type.
  const kept = await KeptRoster.open(first.storage, eid);
  const untyped = [...kept.digests.values()].map(({ digest, tid }) => ({ digest, tid }));
  await first.storage.replaceJournal(
    [
      JSON.stringify({ op: 'start', eid }),
      JSON.stringify({ op: 'refused', key: kept.refusedKey }),
      JSON.stringify({ op: 'codes', cursor: kept.cursor, codes: untyped }),
    ],
    JOURNALS.roster,
  );
  const again = await Scanner.open(first.storage, { fetch: first.fetchVia, retryPolicy: ONCE });
  try {
    const [undecided] = await again.scan([ga!.short_code], { offline: true, gate: 'vip' });
    assert.deepEqual(brief(undecided!), ['reject', 'no_answer', ga!.tid]);
    assert.equal(undecided!.idempotency_key, null, 'nothing queued');
    assert.equal(again.queue.size, 0);
    await again.sync();
    const reread = await KeptRoster.open(first.storage, eid);
    assert.equal(reread.untyped, 0, 'every digest has its type again');
    assert.equal(reread.reread, true, 'the re-read is kept: not done again');
    const [judged] = await again.scan([ga!.short_code], { offline: true, gate: 'vip' });
    assert.deepEqual(brief(judged!), ['reject', 'ticket_type_not_admitted', ga!.tid]);
  } finally {
    await again.close();
  }
});

test("an offline token scan shows the holder's name from the roster once read; a device with digests only has none", async () => {
  const eid = await issuer.createEvent('Names offline');
  const [ada, alan] = await issue(eid, ['GA', 'GA']);
  const search = await linkedDevice(issuer, eid, { allow_search: true });
  const plain = await linkedDevice(issuer, eid, {});
  try {
    // Opened afresh, the device has not read its roster: a token's scan does not wait for it.
    const [first] = await search.scanner.scan([alan!.ticket_token], { offline: true });
    assert.equal(first!.ticket?.holder_name, null);
    await search.scanner.annul(first!.idempotency_key!, { offline: true });
    await search.scanner.sync();
    const [named] = await search.scanner.scan([ada!.ticket_token], { offline: true });
    assert.deepEqual(brief(named!), ['admit', 'valid', ada!.tid]);
    assert.equal(named!.ticket?.holder_name, 'Holder 0');
    search.link.down = true;
    const [fallback] = await search.scanner.scan([alan!.ticket_token]);
    assert.deepEqual([fallback!.source, fallback!.ticket?.holder_name], ['offline', 'Holder 1']);
    const [out] = await search.scanner.exit([ada!.ticket_token], { offline: true });
    assert.deepEqual([out!.verdict, out!.ticket?.holder_name], ['exit', 'Holder 0']);
    const [unnamed] = await plain.scanner.scan([ada!.ticket_token], { offline: true });
    assert.equal(unnamed!.ticket?.holder_name, null);
  } finally {
    await search.scanner.close();
    await plain.scanner.close();
  }
});

test('a typed short code at the exit: online by the issuer, offline by the roster or the digests, sent by its tid', async () => {
  const eid = await issuer.createEvent('Typed exits');
  await issuer.admin('PATCH', `/admin/v1/events/${eid}`, { reentry: true });
  const [ada, alan] = await issue(eid, ['GA', 'GA']);
  const search = await linkedDevice(issuer, eid, { allow_search: true });
  const plain = await linkedDevice(issuer, eid, {});
  try {
    await search.scanner.scan([ada!.short_code, alan!.short_code]);
    await plain.scanner.sync();
    const [online] = await search.scanner.exit([ada!.short_code.toLowerCase()]);
    assert.deepEqual([...brief(online!), online!.source], ['exit', 'checked_out', ada!.tid, 'issuer']);
    assert.equal(online!.ticket?.holder_name, 'Holder 0');
    const [notIn] = await search.scanner.exit([ada!.short_code]);
    assert.deepEqual(brief(notIn!), ['reject', 'not_inside', ada!.tid]);
    const [offline] = await plain.scanner.exit([alan!.short_code.replace('-', ' ')], { offline: true });
    assert.deepEqual([...brief(offline!), offline!.source], ['exit', 'checked_out', alan!.tid, 'offline']);
    const [unknown] = await plain.scanner.exit(['ZZZZZ-ZZZZZ'], { offline: true });
    assert.deepEqual(brief(unknown!), ['reject', 'NOT_FOUND', null]);
    const synced = await plain.scanner.sync();
    assert.deepEqual([synced.uploaded, synced.refused], [1, 0]);
    // The issuer let Alan out: a new exit is refused there, and an entry admitted again.
    const [again] = await search.scanner.exit([alan!.short_code]);
    assert.deepEqual([...brief(again!), again!.source], ['reject', 'not_inside', alan!.tid, 'issuer']);
    const [back] = await search.scanner.scan([alan!.short_code]);
    assert.deepEqual(brief(back!), ['admit', 'valid', alan!.tid]);
  } finally {
    await search.scanner.close();
    await plain.scanner.close();
  }
});
