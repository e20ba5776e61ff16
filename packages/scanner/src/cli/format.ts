import type { RuleRefusal } from '@ticket-issuer/protocol';
import type { AnnulResult } from '../annul.ts';
import type { EnrollResult } from '../enroll.ts';
import type { ScanResult } from '../scan-result.ts';
import type { StatusReport, SyncResult } from '../scanner.ts';
import { type LineContext, placeWords } from './scan-line.ts';

/** The `enroll` line of `--json`: exactly the contract's fields (the first sync's result goes to stderr). */
export function enrollJson(result: EnrollResult): Record<string, unknown> {
  const { scanner_id, api_key_id, eid, event_name, gate_id } = result;
  return { scanner_id, api_key_id, eid, event_name, gate_id };
}

/** The `sync` line of `--json`: exactly the contract's fields. */
export function syncJson(result: SyncResult): Record<string, unknown> {
  const { uploaded, remaining, refused, outcomes, changes } = result;
  // `refused` stays the contract's total; its two parts that matter apart are said beside it.
  return {
    uploaded,
    remaining,
    refused,
    refused_agreed: result.refusedAgreed,
    conflicts: result.conflicts,
    outcomes,
    changes,
  };
}

/**
 * A verdict line of `--json`: exactly the contract's fields (the screen's details stay out), the notes
 * for the gate (`attention`, `checkin_texts`), the ticket's `entries` on an entry's verdict (the scan
 * itself included when admitted), and `"synced": false` on a verdict decided on a device that never
 * synced the feed and the rules.
 */
export function scanJson(result: ScanResult): Record<string, unknown> {
  const { verdict, reason, tid, source, idempotency_key, attention, checkin_texts } = result;
  return {
    verdict,
    reason,
    tid,
    source,
    idempotency_key,
    attention,
    checkin_texts,
    ...(result.entries === undefined ? {} : { entries: result.entries }),
    ...(result.synced === false ? { synced: false } : {}),
  };
}

/**
 * The `annul` line of `--json`: `{"annulled": true, "idempotency_key", "source"}` (`issuer` or
 * `queued`), or a refusal's `{"annulled": false, "idempotency_key", "source", "reason"}`.
 */
export function annulJson(result: AnnulResult): Record<string, unknown> {
  const { annulled, idempotency_key, source } = result;
  return result.annulled
    ? { annulled, idempotency_key, source }
    : { annulled, idempotency_key, source, reason: result.reason };
}

/** An instant as the issuer writes it, without a fraction of zero: `2026-07-03T10:30:00Z`. */
const instant = (value: unknown) => (typeof value === 'string' ? value.replace(/\.000Z$/, 'Z') : '?');

/** Whether a refusal's day is not one of the event's days (a ticket without days of its own is valid on those). */
function outsideEventDays(r: Partial<Record<string, unknown>>): boolean {
  const days = r.event_days as { first?: unknown; last?: unknown } | null | undefined;
  if (!days || typeof days.first !== 'string' || typeof days.last !== 'string') return false;
  return typeof r.event_day !== 'string' || r.event_day < days.first || r.event_day > days.last;
}

/**
 * Why the entry rules refused, in words (the device's own judgement, or the issuer's details, which
 * may name less): when the ticket is valid, how many entries it had, when it may come in again.
 */
export function refusalWords(refusal: RuleRefusal | undefined): string | null {
  if (refusal === undefined) return null;
  const r = refusal as Partial<Record<string, unknown>>;
  if (refusal.reason === 'not_valid_now') {
    const when: string[] = [];
    if (typeof r.valid_from === 'string') when.push(`valid from ${instant(r.valid_from)}`);
    if (Array.isArray(r.valid_days)) when.push(`valid on ${r.valid_days.join(', ')}`);
    else if (outsideEventDays(r)) {
      const days = r.event_days as { first: unknown; last: unknown };
      when.push(`valid on the event's days, ${String(days.first)} to ${String(days.last)}`);
    }
    const hours = r.hours as { from?: unknown; until?: unknown } | null | undefined;
    if (hours) when.push(`valid ${String(hours.from)}-${String(hours.until)} local time`);
    const day = typeof r.event_day === 'string' ? `today is ${r.event_day}` : null;
    return ['not valid now', ...[day, ...when].filter(Boolean)].join('; ');
  }
  if (refusal.reason === 'entry_limit_reached') {
    const counts: string[] = [];
    if (typeof r.max_entries === 'number') counts.push(`${String(r.entries)} of ${r.max_entries} entries`);
    if (typeof r.max_entries_per_day === 'number')
      counts.push(`${String(r.entries_today)} of ${r.max_entries_per_day} today`);
    if (typeof r.max_days === 'number') counts.push(`${String(r.days_used)} of ${r.max_days} days used`);
    return ['entry limit reached', ...counts].join('; ');
  }
  if (refusal.reason === 'too_soon') {
    const next = typeof r.next_entry_at === 'string' ? `; next entry from ${instant(r.next_entry_at)}` : '';
    const last = typeof r.last_entry_at === 'string' ? `; last entry ${instant(r.last_entry_at)}` : '';
    return `too soon${last}${next}`;
  }
  return null;
}

/**
 * What the human verdict line says after the verdict: where a used ticket went in or where a refused
 * holder should go, the refusal's details, then the notes for the gate.
 */
function verdictDetails(r: ScanResult, ctx: LineContext): string {
  const parts = [placeWords(r, ctx), refusalWords(r.refusal)];
  const texts = r.checkin_texts.join(' | ');
  if (r.attention) parts.push(texts ? `ATTENTION: ${texts}` : 'ATTENTION');
  else if (texts) parts.push(`Note: ${texts}`);
  const said = parts.filter((part): part is string => part !== null);
  return said.length === 0 ? '' : `  ${said.join('  ')}`;
}

/** The reason column's width: the longest reason a scan can give (`entry_limit_reached`), so tids line up. */
const REASON_WIDTH = 'entry_limit_reached'.length;

/** One human-readable line per result, for a person at the gate or the terminal. */
export const human = {
  enroll: (r: EnrollResult) =>
    `Enrolled scanner ${r.scanner_id} (key ${r.api_key_id}) for "${r.event_name}" (${r.eid}), ${
      r.gate_id === null ? 'all gates' : `gate ${r.gate_id}`
    }`,
  /** `ADMIT   valid  <tid>  Ada Lovelace  (issuer)  …`: the holder's name where the device knows it. */
  scan: (r: ScanResult, ctx: LineContext = {}) =>
    `${{ admit: 'ADMIT ', exit: 'EXIT  ', reject: 'REJECT' }[r.verdict]}  ${r.reason.padEnd(REASON_WIDTH)}  ${r.tid ?? '-'}  ${
      r.ticket?.holder_name ? `${r.ticket.holder_name}  ` : ''
    }(${r.source}${r.synced === false ? ', never synced' : ''})${verdictDetails(r, ctx)}`,
  annul: (r: AnnulResult) =>
    r.annulled
      ? `ANNULLED      ${r.idempotency_key}  ${r.tid ?? '-'}  (${r.source === 'queued' ? 'queued: sent at the next sync' : 'issuer'})`
      : `NOT ANNULLED  ${r.reason}  ${r.idempotency_key ?? '-'}  (${r.source})`,
  sync: (r: SyncResult) => {
    const outcomes = Object.entries(r.outcomes)
      .filter(([, n]) => n > 0)
      .map(([outcome, n]) => `${outcome} ${n}`)
      .join(', ');
    return `Uploaded ${r.uploaded}${outcomes ? ` (${outcomes})` : ''}, refused ${r.refused}${refusedParts(r)}, remaining ${r.remaining}; pulled ${r.changes} change(s)`;
  },
  status: (r: StatusReport) =>
    `Scanner ${r.scanner_id} (key ${r.api_key_id}) of ${r.issuer}, event ${r.eid}, ${
      r.gate_id === null ? 'all gates' : `gate ${r.gate_id}`
    }: ${r.queued} queued, last sync ${r.last_sync_at ?? 'never'}, ${r.revoked_known} revoked and ${r.checked_in_known} checked in known; undo within ${r.annul_window_s} s; ${clockWords(r.clock_offset_s)}`,
};

/**
 * What the refusals were: " (2 turned away here too, 2 conflicts (let in here), 1 other)": scans the
 * device had turned away as well (the device and the issuer agree), scans it had let in (conflicts),
 * and the rest (refused annuls, scans without a verdict of the device's). Nothing when none.
 */
function refusedParts(r: SyncResult): string {
  if (r.refused === 0) return '';
  const other = r.refused - r.refusedAgreed - r.conflicts;
  const parts = [
    r.refusedAgreed > 0 ? `${r.refusedAgreed} turned away here too` : null,
    r.conflicts > 0 ? `${r.conflicts} ${r.conflicts === 1 ? 'conflict' : 'conflicts'} (let in here)` : null,
    other > 0 ? `${other} other` : null,
  ].filter((part) => part !== null);
  return ` (${parts.join(', ')})`;
}

/** How far this device's clock is from the issuer's, as the last sync of the rules measured it. */
function clockWords(offsetS: number | null): string {
  if (offsetS === null) return "clock not yet compared with the issuer's";
  if (offsetS === 0) return "clock in step with the issuer's";
  return `clock ${Math.abs(offsetS)} s ${offsetS > 0 ? 'ahead of' : 'behind'} the issuer's`;
}
