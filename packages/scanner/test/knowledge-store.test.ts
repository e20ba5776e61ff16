import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import fc from 'fast-check';
import type { Change } from '@ticket-issuer/protocol';
import { FeedKnowledge, JOURNALS, MemoryStorage, ScannerError, STATE_FILES, type Storage } from '../src/index.ts';
import { readKnowledge, resetKnowledge, saveKnowledge } from '../src/knowledge-store.ts';
import { FsStorage } from '../src/storage/fs.ts';
import { tempDir } from './issuer.ts';

const at = (n: number) => new Date(Date.UTC(2026, 6, 1, 10) + n * 1000).toISOString();
const entered = (tid: string, n: number, key: string | null = `key-${tid}-${n}`): Change => ({
  type: 'checked_in',
  tid,
  at: at(n),
  scanner_id: 's',
  gate_id: 'north',
  idempotency_key: key,
});
const left = (tid: string, n: number): Change => ({
  type: 'checked_out',
  tid,
  at: at(n),
  scanner_id: 's',
  gate_id: null,
});

/** What a knowledge holds, as its snapshot would say, and when it last synced. */
const held = (knowledge: FeedKnowledge) => knowledge.toJSON();

/** A sync's pages applied and stored, as `Scanner.sync` does. */
async function sync(storage: Storage, knowledge: FeedKnowledge, pages: Change[][], minJournal?: number) {
  for (const page of pages) knowledge.advance(page, String(Number(knowledge.cursor ?? 0) + page.length + 1));
  knowledge.lastSyncAt = at(Number(knowledge.cursor));
  await saveKnowledge(storage, knowledge, minJournal);
}

/** A device's storage as enrolment leaves it (an empty snapshot), and its knowledge read back. */
async function enrolled<S extends Storage = MemoryStorage>(storage: S = new MemoryStorage() as unknown as S) {
  await resetKnowledge(storage);
  return { storage, knowledge: await readKnowledge(storage) };
}

const opened: FsStorage[] = [];
after(async () => {
  for (const storage of opened) await storage.close();
});

async function fsStorage(dir = tempDir()) {
  const storage = await FsStorage.create(dir);
  opened.push(storage);
  return { dir, storage };
}

describe('what the feed taught, kept as a snapshot and a journal', () => {
  test('a sync appends only the pages it pulled; the snapshot stays; a reopened device knows the same', async () => {
    const { storage, knowledge } = await enrolled();
    const snapshot = storage.files.get(STATE_FILES.knowledge);
    await sync(storage, knowledge, [[entered('A', 1), entered('B', 2)], [left('A', 3)]]);
    await sync(storage, knowledge, [[entered('A', 4), { type: 'revoked', tid: 'C', at: at(5) }]]);
    assert.equal(storage.files.get(STATE_FILES.knowledge), snapshot, 'knowledge.json is not rewritten');
    const lines = await storage.readJournal(JOURNALS.knowledge);
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as { op: string }).op),
      ['page', 'page', 'synced', 'page', 'synced'],
    );
    assert.deepEqual(JSON.parse(lines[0]!).changes, [
      ['i', 'A', at(1), 'north', 'key-A-1'],
      ['i', 'B', at(2), 'north', 'key-B-2'],
    ]);
    const reopened = await readKnowledge(storage);
    assert.deepEqual(held(reopened), held(knowledge));
    assert.deepEqual(reopened.entryKeys.get('A'), ['key-A-1', 'key-A-4']);
  });

  test('any pages over any syncs: a reopened device knows exactly what the live one knows, compactions included', async () => {
    const tid = fc.constantFrom('T1', 'T2', 'T3');
    const key = fc.constantFrom('k1', 'k2', 'k3', 'k4');
    const n = fc.integer({ min: 0, max: 5000 });
    const change: fc.Arbitrary<Change> = fc.oneof(
      fc.tuple(tid, n, fc.option(key)).map(([t, i, k]) => entered(t, i, k)),
      fc.tuple(tid, n).map(([t, i]) => left(t, i)),
      fc
        .tuple(tid, key)
        .map(([t, k]): Change => ({ type: 'annulled', tid: t, idempotency_key: k, scanner_id: 's', at: at(0) })),
      tid.map((t): Change => ({ type: 'revoked', tid: t, at: at(0) })),
      fc
        .tuple(tid, fc.option(fc.constantFrom('j1', 'j2')))
        .map(([t, jti]): Change => ({ type: 'token_superseded', tid: t, jti, at: at(0) })),
      fc.tuple(tid, fc.boolean(), fc.constantFrom(null, '', 'ID needed')).map(([t, attention, text]): Change => ({
        type: 'ticket_notes',
        tid: t,
        attention,
        checkin_text: text,
        at: at(0),
      })),
    );
    const syncs = fc.array(fc.array(fc.array(change, { maxLength: 8 }), { maxLength: 3 }), {
      minLength: 1,
      maxLength: 8,
    });
    await fc.assert(
      fc.asyncProperty(syncs, async (all) => {
        const { storage, knowledge } = await enrolled();
        const folded = new FeedKnowledge();
        for (const pages of all) {
          await sync(storage, knowledge, pages, 600);
          for (const page of pages) folded.apply(page);
          const reopened = await readKnowledge(storage);
          assert.deepEqual(held(reopened), held(knowledge));
          // Pages applied as they came are the feed folded in one go.
          [folded.cursor, folded.lastSyncAt] = [knowledge.cursor, knowledge.lastSyncAt];
          assert.deepEqual(held(knowledge), held(folded));
        }
      }),
      { numRuns: 150 },
    );
  });

  test('once the journal outgrows the snapshot: a new snapshot under a new id, then an empty journal', async () => {
    const { storage, knowledge } = await enrolled();
    const id = () => (JSON.parse(storage.files.get(STATE_FILES.knowledge)!) as { log: string }).log;
    const first = id();
    let tickets = 0;
    const more = () => Array.from({ length: 50 }, () => entered(`T${++tickets}`, tickets));
    await sync(storage, knowledge, [more()], 8000);
    assert.equal(id(), first);
    assert.ok((await storage.readJournal(JOURNALS.knowledge)).length > 0);
    while (id() === first) await sync(storage, knowledge, [more()], 8000);
    assert.deepEqual(await storage.readJournal(JOURNALS.knowledge), [], 'the journal is emptied');
    assert.equal(JSON.parse(storage.files.get(STATE_FILES.knowledge)!).checked_in.length, tickets);
    await sync(storage, knowledge, [more()], 8000);
    const [line] = await storage.readJournal(JOURNALS.knowledge);
    assert.equal((JSON.parse(line!) as { log: string }).log, id(), 'new lines carry the new id');
    assert.deepEqual(held(await readKnowledge(storage)), held(knowledge));
  });

  test('a sync killed mid-append (a torn last line) loses only that page; the next append is clean', async () => {
    const { dir, storage } = await fsStorage();
    const { knowledge } = await enrolled(storage);
    await sync(storage, knowledge, [[entered('A', 1)]]);
    const before = held(knowledge);
    await storage.close();
    appendFileSync(join(dir, JOURNALS.knowledge), '{"op":"page","log":"torn","cursor":"9","changes":[["i","B"');
    const { storage: next } = await fsStorage(dir);
    const reopened = await readKnowledge(next);
    assert.deepEqual(held(reopened), before, 'what came before the torn line is known');
    await sync(next, reopened, [[entered('C', 5)]]);
    await next.close();
    const again = await readKnowledge((await fsStorage(dir)).storage);
    assert.deepEqual(held(again), held(reopened));
    assert.ok(again.checkedIn.has('C') && !again.checkedIn.has('B'));
  });

  test('a crash between the new snapshot and the emptied journal applies nothing twice', async () => {
    const { storage, knowledge } = await enrolled();
    await sync(storage, knowledge, [[entered('A', 1), left('A', 2), entered('A', 3)]]);
    const replace = storage.replaceJournal.bind(storage);
    storage.replaceJournal = async () => {
      throw new ScannerError('STATE_IO', 'cannot rewrite knowledge.jsonl: the device died');
    };
    const lines = Array.from({ length: 80 }, (_, i) => entered(`T${i}`, i));
    await assert.rejects(sync(storage, knowledge, [lines], 2000), /the device died/);
    storage.replaceJournal = replace;
    assert.ok((await storage.readJournal(JOURNALS.knowledge)).length > 0, 'the earlier lines are still there');
    const reopened = await readKnowledge(storage);
    assert.deepEqual(held(reopened), held(knowledge));
    assert.deepEqual(reopened.entries.get('A'), [at(1), at(3)], 'each entry counted once');
    await sync(storage, reopened, [[left('A', 90)]]);
    assert.equal((await storage.readJournal(JOURNALS.knowledge)).length, 0, 'the next store compacts');
  });

  test('stores that overlap run one after another: each page is stored once', async () => {
    const { storage, knowledge } = await enrolled();
    knowledge.advance([entered('A', 1)], '1');
    const first = saveKnowledge(storage, knowledge);
    knowledge.advance([entered('A', 2)], '2');
    await Promise.all([first, saveKnowledge(storage, knowledge)]);
    const pages = (await storage.readJournal(JOURNALS.knowledge)).filter((line) => line.includes('"page"'));
    assert.equal(pages.length, 2);
    assert.deepEqual((await readKnowledge(storage)).entries.get('A'), [at(1), at(2)]);
  });

  test('a compaction that fails leaves the next store to compact again: nothing it took is lost', async () => {
    const { storage, knowledge } = await enrolled();
    const write = storage.writeFileAtomic.bind(storage);
    storage.writeFileAtomic = async () => {
      throw new ScannerError('STATE_IO', 'cannot write knowledge.json: ENOSPC');
    };
    await assert.rejects(sync(storage, knowledge, [[entered('A', 1), entered('B', 2)]], 10), /ENOSPC/);
    storage.writeFileAtomic = write;
    await sync(storage, knowledge, [[entered('C', 3)]], 100_000);
    assert.deepEqual([...(await readKnowledge(storage)).checkedIn], ['A', 'B', 'C']);
  });

  test('a complete line that is not a knowledge entry is STATE_CORRUPT, naming knowledge.jsonl and the line', async () => {
    const { storage, knowledge } = await enrolled();
    await sync(storage, knowledge, [[entered('A', 1)]]);
    const { log } = JSON.parse(storage.files.get(STATE_FILES.knowledge)!) as { log: string };
    for (const bad of ['{"op":"page"', JSON.stringify({ op: 'page', log, cursor: '3', changes: [['i', 'A']] })]) {
      const copy = new MemoryStorage();
      copy.files.set(STATE_FILES.knowledge, storage.files.get(STATE_FILES.knowledge)!);
      await copy.appendJournal([...(await storage.readJournal(JOURNALS.knowledge)), bad], JOURNALS.knowledge);
      await assert.rejects(readKnowledge(copy), (error: unknown) => {
        assert.ok(error instanceof ScannerError);
        assert.equal(error.code, 'STATE_CORRUPT');
        assert.match(error.message, /knowledge\.jsonl is corrupted \(line 3 is not a knowledge entry\): remove it/);
        return true;
      });
    }
  });

  test('a knowledge.json from before the journal is read as it is; the first store rewrites it with an id', async () => {
    const { dir, storage } = await fsStorage();
    const old = {
      cursor: '7',
      last_sync_at: at(7),
      revoked: ['R'],
      superseded: [],
      checked_in: ['A'],
      check_ins: [['A', at(1), 'north']],
    };
    writeFileSync(join(dir, STATE_FILES.knowledge), JSON.stringify(old));
    const knowledge = await readKnowledge(storage);
    assert.deepEqual([knowledge.cursor, [...knowledge.revoked], knowledge.entries.get('A')], ['7', ['R'], [at(1)]]);
    await sync(storage, knowledge, [[entered('B', 9)]]);
    const upgraded = JSON.parse(readFileSync(join(dir, STATE_FILES.knowledge), 'utf8')) as {
      log?: string;
      checked_in: string[];
    };
    assert.equal(typeof upgraded.log, 'string');
    assert.deepEqual(upgraded.checked_in, ['A', 'B']);
    assert.deepEqual(held(await readKnowledge(storage)), held(knowledge));
  });

  test('without knowledge.json the journal is not applied: the device knows nothing, and its next sync starts afresh', async () => {
    const { storage, knowledge } = await enrolled();
    await sync(storage, knowledge, [[entered('A', 1)], [entered('B', 2)]]);
    storage.files.delete(STATE_FILES.knowledge);
    const reopened = await readKnowledge(storage);
    assert.deepEqual([reopened.cursor, reopened.checkedIn.size, reopened.lastSyncAt], [null, 0, null]);
    await sync(storage, reopened, [[entered('C', 3)]]);
    assert.deepEqual([...(await readKnowledge(storage)).checkedIn], ['C']);
  });
});
