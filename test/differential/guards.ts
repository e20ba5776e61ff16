/**
 * The histories a switch that is off leaves out (generator.ts, `ENABLED`): a step that would make one
 * is skipped when it comes, and says so in the history's story. Each guard names the known
 * disagreement it keeps out of the random run (its regression is in regressions.ts).
 */
import { isAnnul } from '../../packages/scanner/src/index.ts';
import { ADMIN_TOKEN } from '../helpers/app.ts';
import type { Switch } from './generator.ts';
import type { Step } from './history.ts';
import type { World } from './world.ts';

/** A line of the scan log, as far as the guards read it. */
export interface LogLine {
  scan_id: number;
  tid: string;
  outcome: string;
  admitted_offline: boolean;
  idempotency_key: string;
  scanned_at: string;
  received_at: string;
  annulled_at: string | null;
}

/** The event's scan log, oldest first. */
export async function scanLines(world: World): Promise<LogLine[]> {
  const res = await world.t.app.inject({
    method: 'GET',
    url: `/admin/v1/events/${world.eid}/scans?limit=1000`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  return (res.json() as { scans: LogLine[] }).scans;
}

/**
 * Whether a device other than `exempt` holds an offline admission of the ticket not uploaded yet (a
 * device's own queue sends a ticket's scans in the order made: its own exit never overtakes its entry).
 */
const admissionWaits = (world: World, ticket: number, exempt: number | null) =>
  world.devices.some(
    (d, n) =>
      n !== exempt &&
      d.scanner.queue
        .pending()
        .some((scan) => scan.tid === world.tickets[ticket]!.tid && scan.direction !== 'out' && scan.admitted_offline),
  );

const counted = (line: LogLine) =>
  line.annulled_at === null && (line.outcome === 'valid' || (line.admitted_offline && line.outcome !== 'valid'));

/** Whether the entry under `key` has an entry of its ticket scanned before it that reached the issuer after it. */
async function lateEntryBefore(world: World, key: string): Promise<boolean> {
  const lines = await scanLines(world);
  const entry = lines.find((l) => l.idempotency_key === key && counted(l));
  if (entry === undefined) return false;
  const at = (instant: string) => Date.parse(instant);
  return lines.some(
    (l) =>
      counted(l) &&
      l.tid === entry.tid &&
      at(l.scanned_at) < at(entry.scanned_at) &&
      at(l.received_at) > at(entry.received_at),
  );
}

/**
 * Whether a device other than the one that admitted the entry under `key` offline holds an admission of
 * its ticket scanned before it, not uploaded yet: it would arrive after the entry, before its queued undo.
 */
function earlierWaits(world: World, key: string): boolean {
  const made = world.deviceAdmits.find((entry) => entry.key === key);
  if (made === undefined) return false;
  return world.devices.some(
    (d, n) =>
      n !== made.device &&
      d.scanner.queue
        .pending()
        .some(
          (scan) =>
            scan.tid === made.tid &&
            scan.direction !== 'out' &&
            scan.admitted_offline &&
            Date.parse(scan.scanned_at) < Date.parse(made.at),
        ),
  );
}

/** The `pick`-th latest of a list (0: the last), or undefined when it is empty. */
export const latest = <T>(list: readonly T[], pick: number): T | undefined =>
  list.length === 0 ? undefined : list[list.length - 1 - (pick % list.length)];

/** The scan-log lines an organizer may undo: entries answered `valid`, not undone yet. */
export const undoable = (lines: readonly LogLine[]) =>
  lines.filter((l) => l.outcome === 'valid' && l.annulled_at === null);

/** The key of the entry an undo names, as the runner picks it (the `pick`-th latest), or null. */
function undoneKey(world: World, step: Step, lines: LogLine[] | null): string | null {
  if (step.kind === 'annulOnline') return latest(world.onlineEntries, step.pick)?.key ?? null;
  if (step.kind === 'annulQueued' || step.kind === 'deviceUndo')
    return latest(world.deviceAdmits, step.pick)?.key ?? null;
  if (step.kind === 'annulAdmin' && lines !== null) {
    return latest(undoable(lines), step.pick)?.idempotency_key ?? null;
  }
  return null;
}

/** Why the switches of this run leave a step out, or null when it runs. */
export async function leftOut(world: World, step: Step, on: ReadonlySet<Switch>): Promise<string | null> {
  const exit = step.kind === 'checkOut' || step.kind === 'offlineOut' || step.kind === 'deviceOut';
  // A device sends a ticket's queued scans before a new one of it, online too: its own exit never overtakes.
  const exempt = step.kind === 'offlineOut' || step.kind === 'deviceOut' ? step.device : null;
  if (exit && !on.has('exit_before_upload') && admissionWaits(world, step.ticket, exempt)) {
    return 'skipped: an offline admission of the ticket waits on another device (exit_before_upload is off)';
  }
  // Switched off, the automatic exit no longer counts out a late entry: the exit it made stays behind it.
  const autoExitOff = step.kind === 'eventSettings' && step.auto_exit === false;
  if (autoExitOff && !on.has('exit_before_upload') && world.tickets.some((_, n) => admissionWaits(world, n, null))) {
    return 'skipped: the automatic exit is switched off while an offline admission waits (exit_before_upload is off)';
  }
  const undo = ['annulOnline', 'annulQueued', 'deviceUndo', 'annulAdmin'].includes(step.kind);
  if (!undo) return null;
  const key = undoneKey(world, step, step.kind === 'annulAdmin' ? await scanLines(world) : null);
  if (key === null) return null;
  const late = (await lateEntryBefore(world, key)) || (step.kind === 'annulQueued' && earlierWaits(world, key));
  if (!on.has('undo_after_late_entry') && late) {
    return 'skipped: an entry scanned before it arrived after it (undo_after_late_entry is off)';
  }
  const devices = world.deviceAdmits.some((entry) => entry.key === key);
  if (step.kind === 'annulAdmin' && devices && !on.has('admin_undo_of_device_entry')) {
    return "skipped: the organizer undoes a device's own admission (admin_undo_of_device_entry is off)";
  }
  return null;
}

/** How old a queued scan may grow before its device must upload it when `upload_after_48h` is off. */
const YOUNG_MS = 47 * 3_600_000;

/**
 * Before the clock moves to `to`: with `upload_after_48h` off, each device holding a scan that would
 * then be older than 47 hours uploads first (the issuer refuses scans over 48 hours old for good).
 * What was uploaded, in words ('' when nothing).
 */
export async function keepUploadsYoung(world: World, to: number, on: ReadonlySet<Switch>): Promise<string> {
  if (on.has('upload_after_48h')) return '';
  const said: string[] = [];
  for (const [n, device] of world.devices.entries()) {
    const oldest = device.scanner.queue.items()[0];
    if (oldest === undefined) continue;
    const madeAt = isAnnul(oldest) ? oldest.annulled_at : oldest.scanned_at;
    if (to - Date.parse(madeAt) < YOUNG_MS) continue;
    const result = await device.scanner.sync();
    said.push(`device ${n} uploads ${result.uploaded} first (upload_after_48h is off)`);
  }
  return said.join('; ');
}
