/**
 * What the offline roster costs a device: an issuer (SQLite) with 50,000 tickets (names, order refs,
 * some attention texts), a device with `allow_search` syncing the whole roster from empty, then a
 * sync that brings 100 changed tickets. For each: bytes over the wire (the roster's answers), the
 * sync's time, and the device's storage (the file system's `roster.jsonl`; IndexedDB's size cannot be
 * measured here). Then one Find by name answered from the roster.
 * Run: node --import tsx packages/scanner/bench/roster.ts [tickets]   (default 50,000)
 */
import { rmSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { enroll, JOURNALS, type RetryPolicy, Scanner } from '../src/index.ts';
import { FsStorage } from '../src/storage/fs.ts';
import { Issuer, tempDir } from '../test/issuer.ts';

const count = Number(process.argv[2] ?? 50_000);
const ONCE: RetryPolicy = {
  initialBackoffMs: 0,
  maxAttempts: 1,
  budgetMs: 0,
  maxRetryAfterMs: 0,
  rateLimitBudgetMs: 0,
};

/** Bytes of the roster's answers as they came over the wire (Content-Length, else the body's size). */
const wire = { bytes: 0, pages: 0, blockRoster: false };
const counting = (async (input: string | URL | Request, init?: RequestInit) => {
  const roster = new URL(String(input)).pathname.endsWith('/roster');
  if (roster && wire.blockRoster)
    throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
  const res = await fetch(input, init);
  if (roster) {
    const length = res.headers.get('content-length');
    wire.bytes += length === null ? (await res.clone().arrayBuffer()).byteLength : Number(length);
    wire.pages += 1;
  }
  return res;
}) as typeof fetch;

const NAMES = ['Ada', 'Alan', 'Grace', 'Zoë', 'Ángel', 'Søren', 'Mei', 'Olu', 'Priya', 'Jonas'];
const FAMILIES = ['Lovelace', 'Turing', 'Hopper', 'Ångström', 'García', 'Kierkegaard', 'Chen', 'Adeyemi'];

/** The i-th ticket: a name, an order of three, an attention text on one in fifty. */
const ticket = (i: number) => ({
  holder_name: `${NAMES[i % NAMES.length]} ${FAMILIES[Math.floor(i / NAMES.length) % FAMILIES.length]} ${i}`,
  ticket_type: 'GA',
  order_ref: `ORDER-${Math.floor(i / 3)}`,
  ...(i % 50 === 0 ? { attention: true, checkin_text: 'Wheelchair: use the side gate' } : {}),
});

const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

const issuer = await Issuer.start();
const dir = join(tempDir('roster-bench-'), 'state');
try {
  const eid = await issuer.createEvent('Roster benchmark');
  const tids: string[] = [];
  for (let from = 0; from < count; from += 5000) {
    const tickets = Array.from({ length: Math.min(5000, count - from) }, (_, i) => ticket(from + i));
    const answer = await issuer.admin<{ tickets: { tid: string }[] }>('POST', `/admin/v1/events/${eid}/tickets`, {
      tickets,
    });
    tids.push(...answer.tickets.map((t) => t.tid));
  }
  const { setup_uri } = await issuer.admin<{ setup_uri: string }>('POST', `/admin/v1/events/${eid}/enrollment-tokens`, {
    allow_search: true,
  });
  // Enrolled without the roster (its first sync could not reach it), so that the timed sync is the one from empty.
  wire.blockRoster = true;
  await enroll(await FsStorage.create(dir), setup_uri, { fetch: counting, retryPolicy: ONCE });
  wire.blockRoster = false;
  const scanner = await Scanner.open(await FsStorage.open(dir), { fetch: counting });
  const rosterFile = join(dir, JOURNALS.roster);
  try {
    process.stdout.write(`load average before: ${load()}\n`);
    let started = performance.now();
    const full = await scanner.sync();
    const fullMs = performance.now() - started;
    const fullBytes = wire.bytes;
    const fullPages = wire.pages;
    const fullSize = statSync(rosterFile).size;
    process.stdout.write(
      `from empty: ${full.roster.lines} tickets in ${fullPages} pages, ${kib(fullBytes)} over the wire, ` +
        `sync ${Math.round(fullMs)} ms, roster.jsonl ${kib(fullSize)} (load ${load()})\n`,
    );

    for (let i = 0; i < 100; i++) {
      const tid = tids[Math.floor((i * count) / 100)]!;
      await issuer.admin('PATCH', `/admin/v1/tickets/${tid}`, { checkin_text: `Changed ${i}` });
    }
    wire.bytes = 0;
    wire.pages = 0;
    started = performance.now();
    const changed = await scanner.sync();
    const changedMs = performance.now() - started;
    const changedSize = statSync(rosterFile).size;
    process.stdout.write(
      `100 changes: ${changed.roster.lines} tickets in ${wire.pages} page(s), ${kib(wire.bytes)} over the wire, ` +
        `sync ${Math.round(changedMs)} ms, roster.jsonl ${kib(changedSize)} (+${changedSize - fullSize} bytes) (load ${load()})\n`,
    );

    started = performance.now();
    const found = await scanner.findHolders('kierkegaard 4', { offline: true });
    const findMs = performance.now() - started;
    started = performance.now();
    await scanner.findHolders('søren kierk', { offline: true });
    const againMs = performance.now() - started;
    process.stdout.write(
      `Find by name offline over ${count} tickets: ${found.tickets.length} found, first query ${findMs.toFixed(0)} ms ` +
        `(search keys worked out), next ${againMs.toFixed(0)} ms\n`,
    );
    started = performance.now();
    const reopened = await Scanner.open(await FsStorage.open(dir), { readOnly: true });
    const openMs = performance.now() - started;
    started = performance.now();
    await reopened.rosterKind();
    const readMs = performance.now() - started;
    process.stdout.write(
      `opening the state: ${Math.round(openMs)} ms (the roster is read on first use: ${Math.round(readMs)} ms)\n`,
    );
    await reopened.close();
  } finally {
    await scanner.close();
  }
} finally {
  await issuer.stop();
  rmSync(issuer.dataDir, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
}
