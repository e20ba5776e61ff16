import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import type { Change } from '@ticket-issuer/protocol';
import { JOURNALS, MemoryStorage, Scanner, STATE_FILES } from '../src/index.ts';
import { discovery, enrolledStorage, envelope, json, NO_RULES } from './fake-issuer.ts';
import { claims, type TestKey, testKey } from './keys.ts';

let key: TestKey;
before(async () => {
  key = await testKey();
});

const at = (n: number) => new Date(Date.UTC(2026, 6, 1, 10) + n * 1000).toISOString();
const tidOf = (n: number) => `01JKNOWLEDGE${String(n).padStart(14, '0')}`;
const entered = (n: number): Change => ({
  type: 'checked_in',
  tid: tidOf(n),
  at: at(n),
  scanner_id: 's',
  gate_id: 'north',
  idempotency_key: crypto.randomUUID(),
});

/** A feed that follows its cursor (the position after the last change sent), in pages of `limit`. */
function feedFetch(feed: Change[]): typeof fetch {
  return (async (input: string | URL | Request) => {
    const url = new URL(String(input));
    if (url.pathname.endsWith('/ticket-issuer.json')) return json(200, discovery(key));
    if (url.pathname.endsWith('/rules')) return json(200, NO_RULES);
    if (!url.pathname.endsWith('/changes')) return envelope(404, 'NOT_FOUND');
    const after = Number(url.searchParams.get('after') ?? 0);
    const changes = feed.slice(after, after + Number(url.searchParams.get('limit')));
    const next = after + changes.length;
    return json(200, { changes, next_cursor: String(next), has_more: next < feed.length });
  }) as typeof fetch;
}

/** The characters each write hands to the storage, by what it wrote. */
function writesOf(storage: MemoryStorage): Map<string, number> {
  const written = new Map<string, number>();
  const add = (what: string, size: number) => written.set(what, (written.get(what) ?? 0) + size);
  const size = (lines: readonly string[]) => lines.reduce((n, line) => n + line.length + 1, 0);
  const { appendJournal, replaceJournal, writeFileAtomic } = storage;
  storage.appendJournal = (lines, journal = JOURNALS.scans) => {
    add(journal, size(lines));
    return appendJournal.call(storage, lines, journal);
  };
  storage.replaceJournal = (lines, journal = JOURNALS.scans) => {
    add(journal, size(lines));
    return replaceJournal.call(storage, lines, journal);
  };
  storage.writeFileAtomic = (name, data) => {
    add(name, data.length);
    return writeFileAtomic.call(storage, name, data);
  };
  return written;
}

test('a device that knows 3,000 tickets: a sync of 10 changes writes what it learned, not what it knew', async () => {
  const feed = Array.from({ length: 3000 }, (_, n) => entered(n));
  const storage = enrolledStorage(key);
  const first = await Scanner.open(storage, { fetch: feedFetch(feed) });
  assert.equal((await first.sync()).changes, 3000);
  await first.close();
  const snapshot = storage.files.get(STATE_FILES.knowledge)!;
  assert.ok(snapshot.length > 300_000, 'the first sync wrote what it learned as a snapshot');

  feed.push(...Array.from({ length: 10 }, (_, n) => entered(3000 + n)));
  const written = writesOf(storage);
  const scanner = await Scanner.open(storage, { fetch: feedFetch(feed) });
  assert.equal((await scanner.sync()).changes, 10);
  assert.equal(written.get(STATE_FILES.knowledge), undefined, 'knowledge.json is not rewritten');
  const appended = written.get(JOURNALS.knowledge) ?? 0;
  assert.ok(appended > 0 && appended < 2500, `the journal got ${appended} characters`);
  const [reused] = await scanner.scan([await key.sign(claims(tidOf(3005)))], { offline: true });
  assert.equal(reused!.reason, 'already_used');
  await scanner.close();

  const reopened = await Scanner.open(storage, { fetch: feedFetch(feed), readOnly: true });
  assert.deepEqual(reopened.knowledge.toJSON(), scanner.knowledge.toJSON());
  assert.equal(reopened.status().checked_in_known, 3010);
  await reopened.close();
});

test('a device from before the journal (its knowledge.json alone) keeps what it knew and moves to the journal', async () => {
  const storage = enrolledStorage(key);
  const old = {
    cursor: '2',
    last_sync_at: at(2),
    revoked: [],
    superseded: [],
    checked_in: [tidOf(0), tidOf(1)],
  };
  storage.files.set(STATE_FILES.knowledge, JSON.stringify(old));
  const feed = [entered(0), entered(1), entered(2)];
  const scanner = await Scanner.open(storage, { fetch: feedFetch(feed) });
  assert.equal((await scanner.sync()).changes, 1);
  await scanner.close();
  const upgraded = JSON.parse(storage.files.get(STATE_FILES.knowledge)!) as { log?: string; checked_in: string[] };
  assert.equal(typeof upgraded.log, 'string');
  assert.deepEqual(upgraded.checked_in, [tidOf(0), tidOf(1), tidOf(2)]);
  feed.push(entered(3));
  const again = await Scanner.open(storage, { fetch: feedFetch(feed) });
  assert.equal((await again.sync()).changes, 1);
  assert.equal(again.status().checked_in_known, 4);
  await again.close();
  assert.equal(JSON.parse(storage.files.get(STATE_FILES.knowledge)!).checked_in.length, 3, 'appended, not rewritten');
});

test('a sync whose feed fails after some pages keeps those pages, and the next sync goes on from them', async () => {
  const feed = Array.from({ length: 2500 }, (_, n) => entered(n));
  const storage = enrolledStorage(key);
  let pages = 0;
  const failing = feedFetch(feed);
  const flaky = (async (input: string | URL | Request, init?: RequestInit) => {
    if (String(input).includes('/changes') && ++pages === 3) return envelope(400, 'INVALID_REQUEST');
    return failing(input, init);
  }) as typeof fetch;
  const scanner = await Scanner.open(storage, { fetch: flaky });
  assert.notEqual((await scanner.sync()).problem, null);
  await scanner.close();
  const reopened = await Scanner.open(storage, { fetch: feedFetch(feed) });
  assert.equal(reopened.knowledge.cursor, '2000');
  assert.equal((await reopened.sync()).changes, 500);
  assert.equal(reopened.status().checked_in_known, 2500);
  await reopened.close();
});
