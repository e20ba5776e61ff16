/**
 * What the verdict screen says about a refusal by the entry rules (`not valid now`, `entry limit
 * reached`, `too soon`): when the ticket is valid, how many entries it had, when it may come in
 * again, in plain words. The details are the device's own judgement or the issuer's 403 (which may
 * name less), so every field is read with care. Pure, tested without a browser.
 */
import type { ScanResult } from '@ticket-issuer/scanner';

/** "18:02" today, "24 Nov 18:02" another day (the device's time zone). */
export type WhenFormat = (iso: string) => string;

type Details = Partial<Record<string, unknown>>;

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const count = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** An event day ("2026-07-04") as staff read it: "Sat 4 Jul" (the date itself, whatever the zone). */
export function dayName(day: string, locale?: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (match === null) return day;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toLocaleDateString(locale, { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' });
}

/**
 * Why the ticket is not valid now: from when, on which days (its own, or the event's), between which
 * hours (the event's local time).
 */
function notValidNow(d: Details, when: WhenFormat, locale?: string): string | null {
  const sentences: string[] = [];
  const from = text(d.valid_from);
  if (from !== null) sentences.push(`Valid from ${when(from)}.`);
  const days = Array.isArray(d.valid_days) ? d.valid_days.filter((day): day is string => typeof day === 'string') : [];
  const today = text(d.event_day);
  const todayIs = today === null ? '' : ` (today is ${dayName(today, locale)})`;
  const eventDays = d.event_days as Details | null | undefined;
  if (days.length > 0) {
    const list = days.map((day) => dayName(day, locale)).join(', ');
    sentences.push(`Valid on ${list} only${todayIs}.`);
  } else if (eventDays && text(eventDays.first) !== null && text(eventDays.last) !== null) {
    // Without days of its own, a ticket is valid on the event's days: said when today is not one.
    const [first, last] = [String(eventDays.first), String(eventDays.last)];
    if (today === null || today < first || today > last) {
      const span = first === last ? dayName(first, locale) : `${dayName(first, locale)} to ${dayName(last, locale)}`;
      sentences.push(`Valid on the event’s days only, ${span}${todayIs}.`);
    }
  }
  const hours = d.hours as Details | null | undefined;
  if (hours && text(hours.from) !== null && text(hours.until) !== null) {
    sentences.push(`Entry from ${String(hours.from)} to ${String(hours.until)}.`);
  }
  return sentences.length === 0 ? null : sentences.join(' ');
}

/** Which limit was reached: the entries in all, today's, or the days (a first entry on one day too many). */
function entryLimit(d: Details): string | null {
  const [entries, max] = [count(d.entries), count(d.max_entries)];
  const [today, maxToday] = [count(d.entries_today), count(d.max_entries_per_day)];
  const [days, maxDays] = [count(d.days_used), count(d.max_days)];
  const lines: string[] = [];
  if (entries !== null && max !== null && entries >= max) lines.push(`Entries used: ${entries} of ${max}.`);
  if (today !== null && maxToday !== null && today >= maxToday) lines.push(`Entries today: ${today} of ${maxToday}.`);
  if (today === 0 && days !== null && maxDays !== null && days >= maxDays)
    lines.push(`Days used: ${days} of ${maxDays}; today would be one more.`);
  return lines.length === 0 ? null : lines.join(' ');
}

/** When the holder may come in again, and when they last did. */
function tooSoon(d: Details, when: WhenFormat): string | null {
  const next = text(d.next_entry_at);
  const last = text(d.last_entry_at);
  if (next === null) return last === null ? null : `Last entry ${when(last)}.`;
  return `Next entry from ${when(next)}${last === null ? '' : ` (last entry ${when(last)})`}.`;
}

/** The details of a refusal by the entry rules, in words; null for any other verdict. */
export function ruleAdvice(result: Pick<ScanResult, 'reason' | 'refusal'>, when: WhenFormat, locale?: string) {
  const details = (result.refusal ?? {}) as Details;
  if (result.reason === 'not_valid_now') return notValidNow(details, when, locale);
  if (result.reason === 'entry_limit_reached') return entryLimit(details);
  if (result.reason === 'too_soon') return tooSoon(details, when);
  return null;
}
