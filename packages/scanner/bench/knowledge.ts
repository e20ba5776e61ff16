/**
 * What a sync costs a device that knows a large event, in its own process: CPU time and bytes written
 * to its state directory (`FsStorage`, every write flushed), with the issuer faked in-process so that
 * only the device's own work is counted. The device first pulls a feed of `count` check-ins (one per
 * ticket, pages of 1,000), then syncs `syncs` times, each sync pulling `perSync` new changes (half of
 * them exits of tickets inside, half entries of new tickets); the figure is the median of those
 * syncs, and apart from it the CPU of opening the state before each (every CLI command opens it).
 * Then a sync that pulls nothing. Bytes are what the scanner hands to its Storage (file content and journal lines).
 * Run: node --import tsx packages/scanner/bench/knowledge.ts [count] [syncs] [perSync]
 *      (default 50,000 tickets, 20 syncs of 100 changes)
 */
import { rmSync } from 'node:fs';
import type { Change } from '@ticket-issuer/protocol';
import { Scanner, type Storage } from '../src/index.ts';
import { FsStorage } from '../src/storage/fs.ts';
import { discovery, json, NO_RULES } from '../test/fake-issuer.ts';
import { tempDir } from '../test/issuer.ts';
import { EID, ISS, testKey } from '../test/keys.ts';
import { median } from './rounds.ts';

const count = Number(process.argv[2] ?? 50_000);
const syncs = Number(process.argv[3] ?? 20);
const perSync = Number(process.argv[4] ?? 100);

/** A ULID-shaped ticket id, as the issuer makes them. */
const tidOf = (n: number) => `01JBENCH${String(n).padStart(18, '0')}`;
const at = (n: number) => new Date(Date.UTC(2026, 6, 1, 10) + n * 1000).toISOString();

const checkedIn = (n: number, seq: number): Change => ({
  type: 'checked_in',
  tid: tidOf(n),
  at: at(seq),
  scanner_id: '6f1c2a52-8d0e-4d47-9d7a-1f3f0e0c0a11',
  gate_id: 'north',
  idempotency_key: crypto.randomUUID(),
});
const checkedOut = (n: number, seq: number): Change => ({
  type: 'checked_out',
  tid: tidOf(n),
  at: at(seq),
  scanner_id: '6f1c2a52-8d0e-4d47-9d7a-1f3f0e0c0a11',
  gate_id: 'north',
});

/** The feed: every change so far, served in pages of 1,000 after a numeric cursor. */
const feed: Change[] = [];
const key = await testKey();
const doc = JSON.stringify(discovery(key));
const rules = JSON.stringify(NO_RULES);
const fakeFetch = (async (input: string | URL | Request) => {
  const url = new URL(String(input));
  if (url.pathname.endsWith('/changes')) {
    const after = Number(url.searchParams.get('after') ?? 0);
    const limit = Number(url.searchParams.get('limit') ?? 500);
    const changes = feed.slice(after, after + limit);
    const next = after + changes.length;
    return json(200, { changes, next_cursor: String(next), has_more: next < feed.length });
  }
  if (url.pathname.endsWith('/rules')) return new Response(rules, { status: 200 });
  if (url.pathname.endsWith('/ticket-issuer.json')) return new Response(doc, { status: 200 });
  return json(404, { error: { code: 'NOT_FOUND', message: 'not here', details: {} } });
}) as typeof fetch;

/** Counts the bytes the scanner hands to its storage, whatever the method. */
function counted(storage: FsStorage): { storage: Storage; written: () => number } {
  let bytes = 0;
  const lines = (list: readonly string[]) => list.reduce((n, line) => n + Buffer.byteLength(line) + 1, 0);
  const wrapped: Storage = {
    appendJournal: (list, ...rest) => ((bytes += lines(list)), storage.appendJournal(list, ...rest)),
    replaceJournal: (list, ...rest) => ((bytes += lines(list)), storage.replaceJournal(list, ...rest)),
    appendLog: (name, list) => ((bytes += lines(list)), storage.appendLog(name, list)),
    writeFileAtomic: (name, data) => ((bytes += Buffer.byteLength(data)), storage.writeFileAtomic(name, data)),
    readJournal: (...args) => storage.readJournal(...args),
    readFile: (name) => storage.readFile(name),
    lock: () => storage.lock(),
  };
  return { storage: wrapped, written: () => bytes };
}

interface Measured {
  /** CPU of opening the state (reading what the device knows). */
  openMs: number;
  /** CPU of the sync itself (pulling, applying and storing what it learned). */
  cpuMs: number;
  wallMs: number;
  bytes: number;
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const cpu = process.cpuUsage(since);
  return (cpu.user + cpu.system) / 1000;
};

/** One sync of the device as a `ticket-scanner sync` makes it (the state opened, synced, closed), measured. */
async function measuredSync(storage: Storage, written: () => number): Promise<Measured> {
  const opening = process.cpuUsage();
  const scanner = await Scanner.open(storage, { fetch: fakeFetch });
  const openMs = cpuMs(opening);
  const before = { cpu: process.cpuUsage(), wall: performance.now(), bytes: written() };
  try {
    const result = await scanner.sync();
    if (result.problem !== null) throw result.problem;
  } finally {
    await scanner.close();
  }
  return { openMs, cpuMs: cpuMs(before.cpu), wallMs: performance.now() - before.wall, bytes: written() - before.bytes };
}

const dir = tempDir();
try {
  const fs = await FsStorage.create(dir);
  const identity = {
    issuer: ISS,
    issuer_name: 'Bench issuer',
    scanner_id: '6f1c2a52-8d0e-4d47-9d7a-1f3f0e0c0a11',
    scanner_name: 'bench',
    api_key_id: 'sck_BENCH',
    eid: EID,
    event_name: 'Bench event',
    event_date: '2026-07-01T18:00:00Z',
    gate_id: null,
    key_expires_at: '2026-07-03T00:00:00Z',
    enrolled_at: '2026-06-01T00:00:00Z',
  };
  await fs.writeFileAtomic('scanner.json', JSON.stringify(identity));
  await fs.writeFileAtomic('credentials.json', JSON.stringify({ api_key: 'sk_live_bench' }));
  await fs.writeFileAtomic('discovery.json', doc);
  const { storage, written } = counted(fs);

  let seq = 0;
  for (let n = 0; n < count; n++) feed.push(checkedIn(n, seq++));
  const first = await measuredSync(storage, written);
  const rounds: Measured[] = [];
  let next = count;
  let exiting = 0;
  for (let round = 0; round < syncs; round++) {
    for (let i = 0; i < perSync; i++) {
      feed.push(i % 2 === 0 ? checkedOut(exiting++, seq++) : checkedIn(next++, seq++));
    }
    rounds.push(await measuredSync(storage, written));
  }
  const idle = await measuredSync(storage, written);
  const snapshot = Buffer.byteLength((await storage.readFile('knowledge.json')) ?? '');

  const ms = (value: number) => `${Math.round(value)} ms`;
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  const at = (pick: (m: Measured) => number) => median(rounds.map(pick));
  process.stdout.write(
    `a device that knows ${count} tickets (${feed.length} changes in the feed at the end):\n` +
      `  first sync, ${count} changes: CPU ${ms(first.cpuMs)}, wall ${ms(first.wallMs)}, written ${kb(first.bytes)}\n` +
      `  a sync of ${perSync} changes (median of ${syncs}): CPU ${ms(at((m) => m.cpuMs))}, ` +
      `wall ${ms(at((m) => m.wallMs))}, written ${kb(at((m) => m.bytes))} ` +
      `(most ${kb(Math.max(...rounds.map((m) => m.bytes)))}, all ${syncs} together ${kb(rounds.reduce((n, m) => n + m.bytes, 0))})\n` +
      `  a sync of nothing: CPU ${ms(idle.cpuMs)}, wall ${ms(idle.wallMs)}, written ${kb(idle.bytes)}; ` +
      `opening the state before it: CPU ${ms(idle.openMs)}\n` +
      `  opening the state before each sync (median): CPU ${ms(at((m) => m.openMs))}\n` +
      `  knowledge.json at the end: ${kb(snapshot)}, the size the knowledge journal may reach before a compaction ` +
      `rewrites it: about ${Math.round(snapshot / at((m) => m.bytes))} syncs like these\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
