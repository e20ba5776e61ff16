/**
 * The offline roster against a real issuer: synced whole, then only changes; refused (403) for a key
 * without `allow_search`, which syncs the short codes' digests instead and asks no more; forgotten
 * when the key is rejected or the device is enrolled for another event; and Find by name offline.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { JOURNALS, type MemoryStorage, Scanner } from '../src/index.ts';
import { Issuer } from './issuer.ts';
import { linkedDevice, ONCE } from './linked-device.ts';

let issuer: Issuer;
before(async () => {
  issuer = await Issuer.start();
});
after(async () => issuer?.stop());

const device = (eid: string, token: Record<string, unknown>, storage?: MemoryStorage) =>
  linkedDevice(issuer, eid, token, storage);

const names = (found: { holder_name: string }[]) => found.map((h) => h.holder_name);

test('a key with allow_search syncs the whole roster at enrolment, then only what changed since', async () => {
  const eid = await issuer.createEvent('Roster');
  const issued = await issuer.issue(eid, 3, { order_ref: 'ORDER-1' });
  await issuer.issue(eid, 1, { holder_name: 'Zoë Ångström' });
  const { scanner, storage } = await device(eid, { allow_search: true });
  try {
    assert.equal(await scanner.rosterKind(), 'roster');
    const lines = storage.journals.get(JOURNALS.roster) ?? [];
    assert.ok(
      lines.some((line) => line.includes('Zoë Ångström')),
      'kept in the storage',
    );
    await issuer.admin('PATCH', `/admin/v1/tickets/${issued[1]!.tid}`, { checkin_text: 'Press pass' });
    const synced = await scanner.sync();
    assert.deepEqual(synced.roster, { lines: 1, problem: null }, 'one change since the cursor');
    const again = await scanner.sync();
    assert.equal(again.roster.lines, 0);
    const group = await scanner.group(issued[1]!.tid, { offline: true });
    assert.deepEqual(
      [group.source, group.order_ref, group.tickets.map((t) => t.tid)],
      ['roster', 'ORDER-1', [issued[1]!.tid, ...[issued[0]!.tid, issued[2]!.tid].sort()]],
    );
    assert.deepEqual(group.tickets[0]!.checkin_texts, ['Press pass']);
    // A reopened device holds what the syncs kept.
    await scanner.close();
    const reopened = await Scanner.open(storage);
    assert.deepEqual(names((await reopened.findHolders('zoe angs', { offline: true })).tickets), ['Zoë Ångström']);
    await reopened.close();
  } finally {
    await scanner.close();
  }
});

test('a key without allow_search is refused the roster once, syncs the digests, and asks again only after a re-enrolment', async () => {
  const eid = await issuer.createEvent('No names');
  await issuer.issue(eid, 2);
  const { scanner, link, storage, fetchVia } = await device(eid, {});
  await scanner.close();
  const reopened = await Scanner.open(storage, { fetch: fetchVia, retryPolicy: ONCE });
  try {
    assert.equal(await reopened.rosterKind(), 'codes');
    const rosterAsked = () => link.paths.filter((p) => p.endsWith('/roster')).length;
    assert.equal(rosterAsked(), 1, 'asked once, at the first sync');
    const lines = storage.journals.get(JOURNALS.roster) ?? [];
    assert.ok(!lines.some((line) => line.includes('Holder')), 'no names on the device');
    await issuer.issue(eid, 1);
    const synced = await reopened.sync();
    assert.deepEqual(synced.roster, { lines: 1, problem: null }, 'the new ticket’s digest');
    assert.equal(rosterAsked(), 1, 'not asked again');
    await assert.rejects(reopened.findHolders('holder', { offline: true }), /no roster of names/);
  } finally {
    await reopened.close();
  }
  // Enrolled again (a key that may search): the roster is asked for again, and given.
  const again = await device(eid, { allow_search: true }, storage);
  try {
    assert.equal(await again.scanner.rosterKind(), 'roster');
    assert.equal((await again.scanner.findHolders('holder', { offline: true })).tickets.length, 3);
  } finally {
    await again.scanner.close();
  }
});

test('the roster is forgotten when the issuer rejects the key, and when the device is enrolled for another event', async () => {
  const eid = await issuer.createEvent('Forgotten');
  await issuer.issue(eid, 1, { holder_name: 'Grace Hopper' });
  const first = await device(eid, { allow_search: true });
  await first.scanner.close();
  const other = await issuer.createEvent('Elsewhere');
  await issuer.issue(other, 1, { holder_name: 'Alan Turing' });
  const second = await device(other, { allow_search: true }, first.storage);
  try {
    const lines = first.storage.journals.get(JOURNALS.roster) ?? [];
    assert.ok(!lines.some((line) => line.includes('Grace Hopper')), 'the first event’s names are gone');
    assert.deepEqual(names((await second.scanner.findHolders('turing', { offline: true })).tickets), ['Alan Turing']);
    assert.deepEqual((await second.scanner.findHolders('hopper', { offline: true })).tickets, []);
    await issuer.admin('POST', `/admin/v1/api-keys/${second.enrolled.api_key_id}/revoke`);
    await assert.rejects(second.scanner.sync(), (error: unknown) => (error as { status?: number }).status === 401);
    assert.deepEqual(first.storage.journals.get(JOURNALS.roster), [], 'nothing held');
    assert.equal(await second.scanner.rosterKind(), null);
  } finally {
    await second.scanner.close();
  }
});

test('Find by name offline answers from the roster, each holder judged by what the device knows, the refusal said first', async () => {
  const eid = await issuer.createEvent('Offline finder');
  const [ada] = await issuer.issue(eid, 1, { holder_name: 'Ada Lovelace' });
  const [adam] = await issuer.issue(eid, 1, { holder_name: 'Adam Lovell' });
  await issuer.issue(eid, 1, { holder_name: 'Zoe Adams' });
  const { scanner, link } = await device(eid, { allow_search: true });
  try {
    await scanner.scan([ada!.token]);
    await issuer.admin('POST', `/admin/v1/tickets/${adam!.tid}/revoke`, {});
    await scanner.sync();
    link.down = true;
    const found = await scanner.findHolders('LOVEL');
    assert.equal(found.source, 'roster', 'the issuer did not answer');
    assert.deepEqual(
      found.tickets.map((h) => [h.holder_name, h.status, h.inside]),
      [
        ['Adam Lovell', 'revoked', false],
        ['Ada Lovelace', 'checked_in', true],
      ],
      'a word starting with the query, shorter names first, as the issuer ranks them',
    );
    assert.deepEqual(
      found.tickets.map((h) => scanner.judgeHolder(h).outcome),
      ['revoked', 'already_used'],
    );
    assert.deepEqual(names((await scanner.findHolders('ada', { offline: true })).tickets), [
      'Adam Lovell',
      'Ada Lovelace',
      'Zoe Adams',
    ]);
    await assert.rejects(scanner.findHolders('a.d', { offline: true }), /at least 3/);
  } finally {
    await scanner.close();
  }
});

test('a roster page that fails fails no sync: the scans went up, the feed came down, and the next sync goes on', async () => {
  const eid = await issuer.createEvent('Roster down');
  const [ada, alan] = await issuer.issue(eid, 2);
  const { scanner, link } = await device(eid, { allow_search: true });
  try {
    await scanner.scan([ada!.token], { offline: true });
    await issuer.admin('PATCH', `/admin/v1/tickets/${alan!.tid}`, { order_ref: 'ORDER-2' });
    link.rosterDown = true;
    const synced = await scanner.sync();
    assert.deepEqual([synced.uploaded, synced.remaining, synced.problem], [1, 0, null]);
    assert.equal(synced.roster.lines, 0);
    assert.match(String(synced.roster.problem?.message), /./);
    link.rosterDown = false;
    const next = await scanner.sync();
    assert.deepEqual(next.roster, { lines: 1, problem: null }, 'the change, from the cursor kept');
    assert.equal((await scanner.group(alan!.tid, { offline: true })).order_ref, 'ORDER-2');
  } finally {
    await scanner.close();
  }
});
