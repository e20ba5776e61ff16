/**
 * Where what the changes feed taught a device is kept: a snapshot (`knowledge.json`), rewritten
 * rarely, and the knowledge journal (`knowledge.jsonl`), to which each sync appends only the pages it
 * pulled. Opening replays the journal over the snapshot. Once the journal has grown past the
 * snapshot's size the knowledge is compacted: a new snapshot, then an empty journal.
 *
 * Each snapshot names a new id, and the journal's lines carry the id of the snapshot they follow, so
 * a crash between writing a snapshot and emptying the journal leaves lines the snapshot holds already,
 * which opening skips; a crash mid-append leaves a torn last line, which the storage leaves out (the
 * next sync pulls that page again). A `knowledge.json` from before the journal (no id) is read as the
 * snapshot it is, and the first store after it rewrites it with one.
 */
import { FeedKnowledge } from './knowledge.ts';
import { parseKnowledgeLine, type KnowledgeLine } from './knowledge-log.ts';
import { checkSnapshot } from './knowledge-snapshot.ts';
import { JOURNALS, STATE_FILES, type Storage } from './storage/storage.ts';

/**
 * The journal is compacted once it holds more characters than the snapshot, and never below this:
 * a device that knows little would otherwise rewrite its snapshot at nearly every sync.
 */
export const MIN_KNOWLEDGE_LOG = 64 * 1024;

/** How a knowledge stands against its storage: its snapshot's id and size, and the journal's size. */
interface Kept {
  /** The id the journal's lines carry (null: no snapshot with an id, the next store compacts). */
  log: string | null;
  snapshotSize: number;
  journalSize: number;
  /** The journal holds lines of an earlier snapshot: compact at the next store. */
  stale: boolean;
  /** The sync times as stored. */
  lastSyncAt: string | null;
  rulesSyncedAt: string | null;
  /** The store under way, if any: the next waits for it. */
  saving: Promise<void>;
}

const kept = new WeakMap<FeedKnowledge, Kept>();

/** A line's size in the journal: its characters and its newline. */
const sizeOf = (lines: readonly string[]) => lines.reduce((sum, line) => sum + line.length + 1, 0);

/**
 * Reads what the device knows: the snapshot, then the journal's lines written after it (a torn last
 * line is left out by the storage; a complete line that does not parse is STATE_CORRUPT).
 */
export async function readKnowledge(storage: Storage): Promise<FeedKnowledge> {
  const text = await storage.readFile(STATE_FILES.knowledge);
  const snapshot = text === null ? null : checkSnapshot(text, STATE_FILES.knowledge);
  const knowledge = snapshot === null ? new FeedKnowledge() : FeedKnowledge.from(snapshot);
  const log = snapshot?.log ?? null;
  const lines = await storage.readJournal(JOURNALS.knowledge);
  let stale = false;
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const entry = parseKnowledgeLine(line, index + 1, log);
    if (entry === 'stale') stale = true;
    else replay(knowledge, entry);
  });
  kept.set(knowledge, {
    ...emptyKept(),
    log,
    snapshotSize: text?.length ?? 0,
    journalSize: sizeOf(lines),
    stale,
    lastSyncAt: knowledge.lastSyncAt,
    rulesSyncedAt: knowledge.rulesSyncedAt,
  });
  return knowledge;
}

function replay(knowledge: FeedKnowledge, entry: KnowledgeLine): void {
  if (entry.op === 'page') knowledge.replay(entry);
  else {
    knowledge.lastSyncAt = entry.last_sync_at;
    knowledge.rulesSyncedAt = entry.rules_synced_at;
  }
}

/**
 * Stores what a sync learned: the pages applied since the last store and the sync's times, appended
 * to the journal in one durable write; or, when the journal would outgrow the snapshot (and
 * `minJournal` characters), holds an earlier snapshot's lines, or there is no snapshot with an id yet,
 * a compaction. Stores of one knowledge run one after another.
 */
export function saveKnowledge(
  storage: Storage,
  knowledge: FeedKnowledge,
  minJournal = MIN_KNOWLEDGE_LOG,
): Promise<void> {
  let state = kept.get(knowledge);
  if (!state) kept.set(knowledge, (state = { ...emptyKept(), stale: true }));
  const run = state.saving.catch(() => undefined).then(() => store(storage, knowledge, state, minJournal));
  state.saving = run;
  return run;
}

async function store(storage: Storage, knowledge: FeedKnowledge, state: Kept, minJournal: number): Promise<void> {
  const lines = knowledge.unsaved.map((page) => JSON.stringify({ op: 'page', log: state.log, ...page }));
  const { lastSyncAt, rulesSyncedAt } = knowledge;
  if (lastSyncAt !== state.lastSyncAt || rulesSyncedAt !== state.rulesSyncedAt) {
    lines.push(
      JSON.stringify({ op: 'synced', log: state.log, last_sync_at: lastSyncAt, rules_synced_at: rulesSyncedAt }),
    );
  }
  const size = sizeOf(lines);
  const outgrown = state.journalSize + size > Math.max(state.snapshotSize, minJournal);
  // Taken now: pages applied while this store runs are the next store's.
  knowledge.unsaved.length = 0;
  Object.assign(state, { lastSyncAt, rulesSyncedAt });
  if (state.log === null || state.stale || outgrown) await compact(storage, knowledge, state);
  else if (lines.length > 0) {
    try {
      await storage.appendJournal(lines, JOURNALS.knowledge);
    } catch (error) {
      // What an append that failed left behind is unknown, and its pages are not kept: the next
      // store writes a new snapshot of everything.
      state.stale = true;
      throw error;
    }
    state.journalSize += size;
  }
}

/**
 * Writes a new snapshot of the whole knowledge under a new id, then empties the journal: its lines
 * carry the previous id, so a crash in between leaves lines that are skipped, never applied twice.
 */
async function compact(storage: Storage, knowledge: FeedKnowledge, state: Kept): Promise<void> {
  const log = crypto.randomUUID();
  const text = `${JSON.stringify({ ...knowledge.toJSON(), log })}\n`;
  // Until both writes are done, the next store compacts again (the pages taken are in no journal).
  state.stale = true;
  await storage.writeFileAtomic(STATE_FILES.knowledge, text);
  Object.assign(state, { log, snapshotSize: text.length });
  await storage.replaceJournal([], JOURNALS.knowledge);
  Object.assign(state, { journalSize: 0, stale: false });
}

const emptyKept = (): Kept => ({
  log: null,
  snapshotSize: 0,
  journalSize: 0,
  stale: false,
  lastSyncAt: null,
  rulesSyncedAt: null,
  saving: Promise.resolve(),
});

/**
 * Makes the device know nothing of the feed (an enrolment for another event, or knowledge that
 * cannot be read): an empty journal, then an empty snapshot under a new id.
 */
export async function resetKnowledge(storage: Storage): Promise<void> {
  await storage.replaceJournal([], JOURNALS.knowledge);
  await compact(storage, new FeedKnowledge(), emptyKept());
}
