/**
 * What the scanner keeps over every Storage, run by the Storage contract on each backend: the scan
 * queue and what the changes feed taught, written, reopened and compacted.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JOURNALS, type QueuedScan, ScanQueue, ScannerError, STATE_FILES } from '../src/index.ts';
import { readKnowledge, resetKnowledge, saveKnowledge } from '../src/knowledge-store.ts';
import type { WithFixture } from './storage-conformance.ts';

export function queuedScan(tid: string, extra: Partial<QueuedScan> = {}): QueuedScan {
  return {
    idempotency_key: crypto.randomUUID(),
    tid,
    ticket_token: `header.${tid}.signature`,
    send_token: true,
    scanned_at: new Date().toISOString(),
    gate_id: null,
    admitted_offline: true,
    verdict: 'admit',
    reason: 'valid',
    maybe_sent_plain: false,
    ...extra,
  };
}

const keysOf = (queue: ScanQueue) => queue.pending().map((s) => s.idempotency_key);

/** The cases, inside the contract's `describe`. */
export function stateConformance(withFixture: WithFixture): void {
  test(
    'what the feed taught, over it: a reopened device knows what its syncs stored, appended and compacted',
    withFixture(async (fixture, storage) => {
      await resetKnowledge(storage);
      const knowledge = await readKnowledge(storage);
      for (let sync = 1; sync <= 6; sync++) {
        const changes = Array.from({ length: 20 }, (_, i) => ({
          type: 'checked_in' as const,
          tid: `T${sync}-${i}`,
          at: new Date(Date.UTC(2026, 6, 1, sync, i)).toISOString(),
          scanner_id: 's',
          gate_id: null,
          idempotency_key: `${sync}-${i}`,
        }));
        knowledge.advance(changes, `cursor-${sync}`);
        knowledge.lastSyncAt = new Date(Date.UTC(2026, 6, 1, sync, 30)).toISOString();
        await saveKnowledge(storage, knowledge, 4000);
      }
      const again = await fixture.open();
      const snapshot = JSON.parse((await again.readFile(STATE_FILES.knowledge))!) as { checked_in: string[] };
      assert.ok(snapshot.checked_in.length > 0 && snapshot.checked_in.length < 120, 'compacted once, not since');
      assert.ok((await again.readJournal(JOURNALS.knowledge)).length > 0, 'later syncs appended');
      assert.deepEqual((await readKnowledge(again)).toJSON(), knowledge.toJSON());
    }),
  );

  test(
    'a queue over it: a reopened queue sees the pending scans in scan order and the admitted tickets',
    withFixture(async (fixture, storage) => {
      const queue = await ScanQueue.open(storage);
      const scans = [queuedScan('A'), queuedScan('B'), queuedScan('A'), queuedScan('C')];
      await queue.record(scans.slice(0, 2), ['A']);
      await queue.record(scans.slice(2));
      await queue.ack([scans[1]!.idempotency_key]);
      const reopened = await ScanQueue.open(await fixture.open());
      assert.deepEqual(
        keysOf(reopened),
        [scans[0], scans[2], scans[3]].map((s) => s!.idempotency_key),
      );
      assert.deepEqual([...reopened.admitted], ['A']);
    }),
  );

  test(
    'a queue over it: compaction keeps exactly the pending scans, their offline marks and the admitted tickets',
    withFixture(async (fixture, storage) => {
      const queue = await ScanQueue.open(storage);
      const scans = Array.from({ length: 40 }, (_, i) => queuedScan(`T${i}`, { admitted_offline: false }));
      await queue.record(scans, ['T0', 'T1']);
      await queue.ack(scans.slice(0, 30).map((s) => s.idempotency_key));
      await queue.markOffline(scans[39]!.idempotency_key, {
        admitted_offline: true,
        maybe_sent_plain: true,
        turned_away: false,
      });
      const before = (await storage.readJournal()).length;
      await queue.compact();
      assert.ok((await storage.readJournal()).length < before, 'the journal is shorter');
      const reopened = await ScanQueue.open(await fixture.open());
      assert.deepEqual(keysOf(reopened), keysOf(queue));
      assert.equal(reopened.size, 10);
      assert.deepEqual([...reopened.admitted].sort(), ['T0', 'T1', 'T39']);
      const last = reopened.pending().at(-1)!;
      assert.equal(last.admitted_offline, true);
      assert.equal(last.maybe_sent_plain, true);
    }),
  );

  test(
    'a queue over it: a complete line that is not a journal entry is corruption, never skipped',
    withFixture(async (_, storage) => {
      const queue = await ScanQueue.open(storage);
      await queue.record([queuedScan('A')]);
      await storage.appendJournal(['{"op":"scan","scan":{"tid":3}}']);
      await assert.rejects(ScanQueue.open(storage), (error: unknown) => {
        assert.ok(error instanceof ScannerError);
        assert.equal(error.code, 'STATE_CORRUPT');
        assert.match(error.message, /line 2/);
        return true;
      });
    }),
  );
}
