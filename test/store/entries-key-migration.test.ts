import assert from 'node:assert/strict';
import { onEachStoreFile, type StoreFile } from '../helpers/store-files.ts';
import { annulOutcome } from '@ticket-issuer/protocol';
import type { CheckInAttempt } from '../../src/store/store.ts';
import { seedEvent } from './seeded-store.ts';

/**
 * Migration 38 drops the entries' index by idempotency key and keeps each remembered answer's ticket.
 * A store that checked a ticket in (a counted entry) and in again (a duplicate) is taken back to
 * version 37 (its entries keyed again, its answers without their ticket), opened again so that 38 runs
 * on what came before it, and then undoes the entry by the scanner's key: found through the answer's
 * ticket, as a new entry is.
 */
const SQLITE_BACK_TO_37 = `
  CREATE TABLE entries_keyed (
    eid TEXT NOT NULL, idempotency_key TEXT NOT NULL, tid TEXT NOT NULL, scanner_id TEXT NOT NULL,
    scanned_at TEXT NOT NULL, annulled_at TEXT, gate_key TEXT NOT NULL DEFAULT '',
    was_inside INTEGER NOT NULL DEFAULT 0, day TEXT, PRIMARY KEY (eid, idempotency_key)
  );
  INSERT INTO entries_keyed SELECT * FROM entries;
  DROP TABLE entries;
  ALTER TABLE entries_keyed RENAME TO entries;
  CREATE INDEX entries_by_ticket ON entries (tid, scanned_at);
  ALTER TABLE idempotency_keys DROP COLUMN tid;
  DELETE FROM schema_migrations WHERE version = 38;`;

const POSTGRES_BACK_TO_37 = `
  ALTER TABLE entries ADD PRIMARY KEY (eid, idempotency_key);
  ALTER TABLE idempotency_keys DROP COLUMN tid;
  DELETE FROM schema_migrations WHERE version = 38;`;

async function upgrades(sql: StoreFile, backTo37: string, entryIndexes: string): Promise<void> {
  let store = await sql.open();
  const { event, tickets, key, attempt: attemptOf, scannedAt: at, judge } = await seedEvent(store, 1);
  const ticket = tickets[0]!;
  const attempt = () => attemptOf(ticket, null, at);
  const entry = attempt();
  const again = attempt();
  const statusOf = async (a: CheckInAttempt) => {
    const result = await store.checkIns.checkIn(a, judge);
    return result.kind === 'answered' ? (result.answer.body as { status?: string }).status : result.kind;
  };
  assert.equal(await statusOf(entry), 'valid');
  assert.equal(await statusOf(again), 'already_used');
  await store.close();

  await sql.exec(backTo37);
  assert.equal(
    (await sql.column(entryIndexes)).length,
    2,
    'at version 37, the entries are indexed by key and by ticket',
  );
  store = await sql.open();
  try {
    assert.deepEqual(
      await sql.column(entryIndexes),
      ['entries_by_ticket'],
      'the entries keep their index by ticket only',
    );
    const ticketOf = (k: string) => sql.column('SELECT tid FROM idempotency_keys WHERE idempotency_key = $1', k);
    assert.deepEqual(await ticketOf(entry.idempotency_key), [ticket.tid], "the entry's answer keeps its ticket");
    assert.deepEqual(
      await ticketOf(again.idempotency_key),
      [null],
      'a duplicate is found by the index of scans by key',
    );
    const undone = await store.checkIns.annulEntry(
      {
        eid: event.eid,
        target: { scanner_id: key.scanner_id, idempotency_key: entry.idempotency_key },
        annulled_at: at,
        received_at: at,
      },
      (seen) => annulOutcome({ isEntry: seen.isEntry, latest: seen.latest, withinWindow: true }),
    );
    assert.equal(undone.kind, 'annulled');
    assert.deepEqual(
      await sql.column('SELECT annulled_at FROM entries WHERE idempotency_key = $1', entry.idempotency_key),
      [at],
    );
    assert.equal(await statusOf(attempt()), 'valid', 'the ticket is unused again, and a new entry counts');
  } finally {
    await store.close();
  }
}

await onEachStoreFile(
  'migration 38: the entries lose their index by key, each remembered answer keeps its ticket',
  (file) =>
    file.backend === 'SQLite'
      ? upgrades(file, SQLITE_BACK_TO_37, "SELECT name FROM pragma_index_list('entries') ORDER BY name")
      : upgrades(
          file,
          POSTGRES_BACK_TO_37,
          "SELECT indexname FROM pg_indexes WHERE tablename = 'entries' ORDER BY indexname",
        ),
);
