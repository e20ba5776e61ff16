/**
 * What every Storage must do, run against each backend (memory, file system, IndexedDB): the same
 * cases, so the scanner's queue and state behave the same wherever they are kept.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { JOURNALS, ScannerError, STATE_FILES, type Storage } from '../src/index.ts';
import { rosterConformance } from './roster-conformance.ts';
import { stateConformance } from './state-conformance.ts';

export { queuedScan } from './state-conformance.ts';

/** One backend's state under test. */
export interface StorageFixture {
  /**
   * A storage over this fixture's state: a new handle on each call where the backend has handles
   * (the next process, the next page load), else the same storage.
   */
  open(): Promise<Storage>;
  /** Closes every handle it opened. */
  dispose(): Promise<void>;
}

const inUse = (error: unknown) => error instanceof ScannerError && error.code === 'STATE_IN_USE';

/** Lines as a journal may hold them: JSON with quotes, backslashes, non-ASCII text and emoji. */
const AWKWARD = ['{"op":"admitted","tids":["A"]}', '{"name":"Zoë \\"Q\\" Ångström \\\\ 票 🎫"}', ' spaced '];

/** A case's body over a fresh fixture, as a test function. */
export type WithFixture = (body: (fixture: StorageFixture, storage: Storage) => Promise<void>) => () => Promise<void>;

export function storageConformance(name: string, make: () => Promise<StorageFixture>): void {
  /** Runs a case over a fresh fixture, disposed of however the case ends. */
  const withFixture: WithFixture = (body) => async () => {
    const fixture = await make();
    try {
      await body(fixture, await fixture.open());
    } finally {
      await fixture.dispose();
    }
  };

  describe(`the Storage contract: ${name}`, () => {
    test(
      'a new state is empty',
      withFixture(async (_, storage) => {
        for (const journal of Object.values(JOURNALS))
          assert.deepEqual(await storage.readJournal(journal), [], journal);
        for (const file of Object.values(STATE_FILES)) assert.equal(await storage.readFile(file), null, file);
      }),
    );

    test(
      'the journal keeps every line exactly, in order, across appends and a reopening',
      withFixture(async (fixture, storage) => {
        await storage.appendJournal(['a', 'b']);
        await storage.appendJournal([]);
        await storage.appendJournal(AWKWARD);
        await storage.appendJournal(['c']);
        const expected = ['a', 'b', ...AWKWARD, 'c'];
        assert.deepEqual(await storage.readJournal(), expected);
        assert.deepEqual(await (await fixture.open()).readJournal(), expected);
      }),
    );

    test(
      'overlapping appends all land, each one whole',
      withFixture(async (fixture, storage) => {
        await Promise.all(Array.from({ length: 20 }, (_, i) => storage.appendJournal([`${i}:a`, `${i}:b`, `${i}:c`])));
        const lines = await (await fixture.open()).readJournal();
        assert.equal(lines.length, 60);
        for (let i = 0; i < 20; i++) {
          const at = lines.indexOf(`${i}:a`);
          assert.deepEqual(lines.slice(at, at + 3), [`${i}:a`, `${i}:b`, `${i}:c`], `append ${i}`);
        }
      }),
    );

    test(
      'replaceJournal replaces the whole journal; appends follow it; an empty one empties it',
      withFixture(async (fixture, storage) => {
        await storage.appendJournal(['old 1', 'old 2', 'old 3']);
        await storage.replaceJournal(['x', 'y']);
        await storage.appendJournal(['z']);
        assert.deepEqual(await storage.readJournal(), ['x', 'y', 'z']);
        const again = await fixture.open();
        assert.deepEqual(await again.readJournal(), ['x', 'y', 'z']);
        await again.replaceJournal([]);
        assert.deepEqual(await again.readJournal(), []);
        assert.deepEqual(await (await fixture.open()).readJournal(), []);
      }),
    );

    test(
      'each journal keeps its own lines: appends, a replacement and a reopening of one leave the other as it was',
      withFixture(async (fixture, storage) => {
        const knowledge = JOURNALS.knowledge;
        await storage.appendJournal(['scan 1']);
        await storage.appendJournal(['fed 1', 'fed 2'], knowledge);
        await storage.appendJournal([], knowledge);
        await storage.appendJournal(AWKWARD, knowledge);
        await storage.appendJournal(['scan 2'], JOURNALS.scans);
        assert.deepEqual(await storage.readJournal(knowledge), ['fed 1', 'fed 2', ...AWKWARD]);
        assert.deepEqual(await storage.readJournal(), ['scan 1', 'scan 2']);
        await storage.replaceJournal(['snapshot'], knowledge);
        await storage.appendJournal(['fed 3'], knowledge);
        const again = await fixture.open();
        assert.deepEqual(await again.readJournal(knowledge), ['snapshot', 'fed 3']);
        assert.deepEqual(await again.readJournal(JOURNALS.scans), ['scan 1', 'scan 2']);
        await again.replaceJournal([], knowledge);
        await again.replaceJournal(['scans only']);
        assert.deepEqual(await (await fixture.open()).readJournal(knowledge), []);
        assert.deepEqual(await (await fixture.open()).readJournal(), ['scans only']);
      }),
    );

    test(
      'overlapping appends to two journals all land, each whole and in its own journal',
      withFixture(async (fixture, storage) => {
        await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            Promise.all([
              storage.appendJournal([`${i}:a`, `${i}:b`], JOURNALS.knowledge),
              storage.appendJournal([`${i}:scan`]),
            ]),
          ),
        );
        const again = await fixture.open();
        const fed = await again.readJournal(JOURNALS.knowledge);
        assert.equal(fed.length, 20);
        for (let i = 0; i < 10; i++) assert.equal(fed[fed.indexOf(`${i}:a`) + 1], `${i}:b`, `append ${i}`);
        assert.deepEqual((await again.readJournal()).sort(), Array.from({ length: 10 }, (_, i) => `${i}:scan`).sort());
      }),
    );

    test(
      'a file is replaced whole, read back exactly, and kept across a reopening',
      withFixture(async (fixture, storage) => {
        assert.equal(await storage.readFile('missing.json'), null);
        await storage.writeFileAtomic(STATE_FILES.scanner, `{"long":"${'x'.repeat(5000)}"}\n`);
        await storage.writeFileAtomic(STATE_FILES.scanner, '{"short":1}\n');
        assert.equal(await storage.readFile(STATE_FILES.scanner), '{"short":1}\n');
        const key = `{"api_key":"sk_live_${'k'.repeat(40)}","note":"Zoë 票"}\n`;
        await storage.writeFileAtomic(STATE_FILES.credentials, key);
        await storage.writeFileAtomic(STATE_FILES.knowledge, '');
        const again = await fixture.open();
        assert.equal(await again.readFile(STATE_FILES.scanner), '{"short":1}\n');
        assert.equal(await again.readFile(STATE_FILES.credentials), key);
        assert.equal(await again.readFile(STATE_FILES.knowledge), '');
        assert.equal(await again.readFile(STATE_FILES.discovery), null);
        assert.deepEqual(await again.readJournal(), [], 'files are not journal lines');
      }),
    );

    test(
      'a log gets whole lines appended, each log its own',
      withFixture(async (fixture, storage) => {
        await storage.appendLog(STATE_FILES.refused, []);
        assert.equal(await storage.readFile(STATE_FILES.refused), null, 'an empty append creates nothing');
        await storage.appendLog(STATE_FILES.refused, ['one']);
        await storage.appendLog(STATE_FILES.refused, ['two', AWKWARD[1]!]);
        await storage.appendLog('other.jsonl', ['else']);
        const again = await fixture.open();
        assert.equal(await again.readFile(STATE_FILES.refused), `one\ntwo\n${AWKWARD[1]}\n`);
        assert.equal(await again.readFile('other.jsonl'), 'else\n');
        assert.deepEqual(await again.readJournal(), []);
      }),
    );

    test(
      'one writer at a time: a second lock, on this handle or another, is STATE_IN_USE until released',
      withFixture(async (fixture, storage) => {
        const release = await storage.lock();
        await assert.rejects(storage.lock(), inUse);
        const other = await fixture.open();
        await assert.rejects(other.lock(), inUse);
        await release();
        const releaseOther = await other.lock();
        await assert.rejects(storage.lock(), inUse);
        await releaseOther();
        await (
          await storage.lock()
        )();
      }),
    );

    stateConformance(withFixture);
    rosterConformance(withFixture);
  });
}
