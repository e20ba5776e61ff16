import { api } from '../api.js';
import { h, replace, when } from '../dom.js';

const RECENT = 50;

/**
 * The event's scan log, read incrementally and kept in memory (the chart is drawn from it). The log's
 * `next_cursor` is given even at its end and never skips a scan that committed late, so each poll asks
 * from where the last one stopped.
 */
export function scanLog(eid) {
  const scans = new Map();
  let cursor = null;

  async function fetchNew() {
    let added = false;
    for (;;) {
      const query = new URLSearchParams({ limit: '1000', include: 'holder_name', ...(cursor ? { cursor } : {}) });
      const page = await api('GET', `/events/${encodeURIComponent(eid)}/scans?${query}`);
      for (const scan of page.scans) {
        if (!scans.has(scan.scan_id)) added = true;
        scans.set(scan.scan_id, scan);
      }
      cursor = page.next_cursor ?? cursor;
      if (!page.has_more) return added;
    }
  }

  return { fetchNew, all: () => [...scans.values()] };
}

/** The most recent scans, newest first, each with its outcome. */
export function renderScanLog(list, scans, scannerNames) {
  const recent = scans.sort((a, b) => b.scan_id - a.scan_id).slice(0, RECENT);
  if (recent.length === 0) return replace(list, h('li', { class: 'muted', text: 'No scans yet.' }));
  replace(
    list,
    recent.map((scan) =>
      h(
        'li',
        {},
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
      ),
    ),
  );
}

/** Offline double entries: each ticket let in twice, with its valid check-in and the duplicates. */
export function renderConflicts(list, conflicts) {
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
            h('li', { text: `Again ${scanText(d)}${d.admitted_offline ? ', admitted offline' : ''}` }),
          ),
        ),
      ),
    ),
  );
}

/** The first page of conflicts (the report is rarely long; the count says if there are more). */
export async function fetchConflicts(eid) {
  return (await api('GET', `/events/${encodeURIComponent(eid)}/conflicts?limit=100`)).conflicts;
}
