import { api } from '../api.js';
import { h, replace, when } from '../dom.js';

/** Scans per page of the scan log, and conflicts per page of the report. */
const SCAN_PAGE = 50;
const CONFLICT_PAGE = 20;

/**
 * The event's scan log as the console shows it: the latest page, read again at each poll, and the
 * older pages the organizer asked for (**Load more**), a page at a time: never the whole log, which at
 * a festival holds millions of scans. The scans kept always run without a gap from the newest down to
 * where the next older page starts; when more scans arrived than a page holds (or the list grew a page
 * past what was asked for), it starts again from the latest page.
 */
export function scanLog(eid) {
  const path = `/events/${encodeURIComponent(eid)}/scans/recent`;
  const read = (cursor) =>
    api(
      'GET',
      `${path}?${new URLSearchParams({ limit: String(SCAN_PAGE), include: 'holder_name', ...(cursor ? { cursor } : {}) })}`,
    );
  /** Newest first, each once. */
  let kept = [];
  /** Where the next older page starts: null at the start of the log. */
  let olderCursor = null;
  /** How many scans the organizer asked to see. */
  let wanted = SCAN_PAGE;
  const merge = (...lists) =>
    [...new Map(lists.flat().map((scan) => [scan.scan_id, scan])).values()].sort((a, b) => b.scan_id - a.scan_id);

  async function refresh() {
    const page = await read(null);
    const newest = kept.length > 0 ? kept[0].scan_id : 0;
    if (page.next_cursor !== null && page.scans.some((scan) => scan.scan_id <= newest)) {
      // The page just read wins: a line of it may have changed since (an annulled entry).
      const joined = merge(kept, page.scans);
      if (joined.length <= wanted + SCAN_PAGE) {
        kept = joined;
        return;
      }
    } else if (page.next_cursor === null) {
      // The whole log fits in a page.
      kept = page.scans;
      olderCursor = null;
      return;
    }
    kept = page.scans;
    olderCursor = page.next_cursor;
    wanted = SCAN_PAGE;
  }

  async function loadOlder() {
    if (olderCursor === null) return;
    const page = await read(olderCursor);
    kept = merge(kept, page.scans);
    olderCursor = page.next_cursor;
    wanted = kept.length;
  }

  /** Entries annulled from this page (idempotency key → when), for lines not yet read again since. */
  const annulledHere = new Map();
  /**
   * Marks the lines of an entry annulled, as the issuer did (each valid line of its idempotency key),
   * by the browser's clock until a read of the log brings the issuer's own time: a read that started
   * before the annul cannot show the entry counting again.
   */
  const markAnnulled = (entry) => annulledHere.set(entry.idempotency_key, new Date().toISOString());
  const shown = () =>
    kept.map((scan) =>
      !scan.annulled_at && scan.outcome === 'valid' && annulledHere.has(scan.idempotency_key)
        ? { ...scan, annulled_at: annulledHere.get(scan.idempotency_key) }
        : scan,
    );

  return { refresh, loadOlder, markAnnulled, shown, hasOlder: () => olderCursor !== null };
}

/** A "Load more" button that runs `load` and then `render`, or nothing when there is no more. */
function loadMore(hasMore, load, render) {
  if (!hasMore) return null;
  const button = h('button', {
    type: 'button',
    class: 'secondary load-more',
    text: 'Load more',
    onClick: async () => {
      button.disabled = true;
      try {
        await load();
      } finally {
        render();
      }
    },
  });
  return button;
}

/**
 * The scans shown, newest first, each with its outcome and what `annul` (scan-annul.js) says of it
 * (**Annul entry**, or when it was annulled), and **Load more** while older ones exist.
 */
export function renderScanLog(list, more, log, scannerNames, annul) {
  const rerender = () => renderScanLog(list, more, log, scannerNames, annul);
  replace(more, loadMore(log.hasOlder(), log.loadOlder, rerender));
  const scans = log.shown();
  if (scans.length === 0) return replace(list, h('li', { class: 'muted', text: 'No scans yet.' }));
  // Drawn anew at each poll: the focus stays on the same line (its button, or its note once annulled).
  const focused = list.contains(document.activeElement) ? document.activeElement.dataset.scanId : undefined;
  replace(
    list,
    scans.map((scan) =>
      h(
        'li',
        { class: scan.annulled_at ? 'annulled' : null },
        h('span', { class: `outcome outcome-${scan.outcome}`, text: scan.outcome.replaceAll('_', ' ') }),
        scan.replay ? h('span', { class: 'muted', text: ' (replay)' }) : null,
        scan.admitted_offline ? h('span', { class: 'muted', text: ' · admitted offline' }) : null,
        scan.holder_name ? h('div', { class: 'holder', text: scan.holder_name }) : null,
        // Why: a revocation's reason, a refusal's, a gate's.
        scan.reason ? h('div', { class: 'small', text: `Reason: ${scan.reason}` }) : null,
        h(
          'div',
          { class: 'muted small' },
          `${when(scan.scanned_at)} · ${scan.gate_id ?? 'no gate'} · `,
          scan.scanner_name ?? scannerNames.get(scan.api_key_id) ?? scan.scanner_id,
        ),
        h('div', { class: 'small' }, 'Ticket ', h('code', { text: scan.tid })),
        annul.control(scan),
      ),
    ),
  );
  if (focused !== undefined) list.querySelector(`[data-scan-id="${focused}"]`)?.focus();
}

/**
 * The event's conflicts report as the console shows it: the first page, and as many more pages as
 * the organizer asked for (**Load more**), all read again at each poll (a card gains duplicates, and
 * a late upload can add a card anywhere in the report's order), a page at a time.
 */
export function conflictReport(eid) {
  const path = `/events/${encodeURIComponent(eid)}/conflicts`;
  let wanted = CONFLICT_PAGE;
  let cards = [];
  let next = null;

  async function read(count) {
    const found = [];
    let cursor = null;
    do {
      const limit = String(Math.min(100, count - found.length));
      const page = await api('GET', `${path}?${new URLSearchParams({ limit, ...(cursor ? { cursor } : {}) })}`);
      found.push(...page.conflicts);
      cursor = page.next_cursor;
    } while (cursor !== null && found.length < count);
    cards = found;
    next = cursor;
  }

  return {
    refresh: () => read(wanted),
    loadMore: () => read((wanted = cards.length + CONFLICT_PAGE)),
    shown: () => cards,
    hasMore: () => next !== null,
  };
}

/**
 * Offline double entries: each ticket let in twice, or let in offline against its entry rules, with its
 * entry and the duplicates (a refusal of the rules says which).
 */
export function renderConflicts(list, more, report) {
  replace(
    more,
    loadMore(report.hasMore(), report.loadMore, () => renderConflicts(list, more, report)),
  );
  const conflicts = report.shown();
  if (conflicts.length === 0) return replace(list, h('li', { class: 'muted', text: 'No offline double entries.' }));
  const scanText = (scan) =>
    `${when(scan.scanned_at)} at ${scan.gate_id ?? 'no gate'} (scanner ${scan.scanner_name ?? scan.scanner_id})`;
  replace(
    list,
    conflicts.map((conflict) =>
      h(
        'li',
        {},
        h('strong', { text: conflict.holder_name }),
        ' ',
        h('code', { class: 'small', text: conflict.tid }),
        h('div', { class: 'small', text: `Checked in ${scanText(conflict.first)}` }),
        h(
          'ul',
          { class: 'small' },
          conflict.duplicates.map((d) =>
            // A refusal of the entry rules (not_valid_now, …) that a scanner let in offline says why.
            d.reason
              ? h('li', {
                  'data-reason': d.reason,
                  text: `Let in ${scanText(d)}, admitted offline: ${d.reason.replaceAll('_', ' ')}`,
                })
              : h('li', { text: `Again ${scanText(d)}${d.admitted_offline ? ', admitted offline' : ''}` }),
          ),
        ),
      ),
    ),
  );
}
