/**
 * The steps of the differential test that need no token: a short code typed on a device (resolved by
 * the issuer online, offline by the roster or by the codes' digests, or a code no ticket has), a
 * ticket's group checked in on a device (some members left out), a device's clock running fast or
 * slow (its sync measures the offset), and the clock moved to the edge of a type's hours.
 */
import { eventDayOf, eventDayStart } from '@ticket-issuer/protocol';
import { adminCall } from '../helpers/app.ts';
import type { CodeForm, Step } from './history.ts';
import { deviceSync } from './device-steps.ts';
import { calendarOf, dayPlus, type World } from './world.ts';

/** A code no ticket of a history has (a real one is 50 random bits: a clash is not to be feared). */
export const UNKNOWN_CODE = 'ZZZZZ-ZZZZZ';

/** A printed code (`XXXXX-XXXXX`) as a history types it. */
export function typedCode(code: string, form: CodeForm = 'printed'): string {
  if (form === 'lower') return code.toLowerCase();
  if (form === 'nodash') return code.replace('-', '');
  if (form === 'spaced') return code.toLowerCase().replace('-', ' ');
  return code;
}

/** Keeps a device's admission, so that the history's undos may pick it. */
function keepAdmit(world: World, device: number, tid: string, key: string | null) {
  if (key !== null) world.deviceAdmits.push({ device, key, tid, at: world.t.clock.now().toISOString() });
}

/** A short code typed on a device: its verdict, and where it came from. */
export async function codeScan(world: World, step: Step & { kind: 'codeIn' }): Promise<string> {
  const ticket = world.tickets[step.ticket]!;
  const typed = typedCode(step.unknown ? UNKNOWN_CODE : ticket.code, world.history.setup.codeForm);
  const device = world.devices[step.device]!;
  const [result] = await device.scanner.scan([typed], { offline: step.offline, gate: world.gates[step.gate]! });
  if (step.unknown && (result!.reason !== 'NOT_FOUND' || result!.idempotency_key !== null)) {
    throw new Error(`an unknown code answered ${JSON.stringify(result)}`);
  }
  if (result!.verdict === 'admit') keepAdmit(world, step.device, ticket.tid, result!.idempotency_key);
  return `${typed}: ${result!.verdict} ${result!.reason} (${result!.source})`;
}

/**
 * A ticket's group on a device and the chosen members checked in: online the issuer's group and a
 * sync right after (as the CLI's `--group`), offline the roster's, queued. A device without the
 * roster cannot tell a group offline: the step says so.
 */
export async function groupScan(world: World, step: Step & { kind: 'groupIn' }): Promise<string> {
  const device = world.devices[step.device]!;
  const ticket = world.tickets[step.ticket]!;
  if (step.offline && (await device.scanner.rosterKind()) !== 'roster') return 'no roster on the device';
  const group = await device.scanner.group(ticket.tid, { offline: step.offline });
  const chosen = group.tickets.filter((_, n) => (step.mask >> n) & 1);
  if (chosen.length === 0) return `group of ${group.tickets.length}: none chosen`;
  const results = await device.scanner.checkInGroup(chosen, { gate: world.gates[step.gate]! });
  for (const r of results) if (r.verdict === 'admit') keepAdmit(world, step.device, r.tid!, r.idempotency_key);
  const said = results.map((r) => `${world.tickets.findIndex((t) => t.tid === r.tid)} ${r.verdict} ${r.reason}`);
  const synced = step.offline ? '' : `; ${await deviceSync(world, step.device)}`;
  return `group of ${group.tickets.length} (${group.source}): ${said.join(', ')}${synced}`;
}

/** A device's clock set off, and its sync, which measures the offset. */
export async function skewClock(world: World, step: Step & { kind: 'skew' }): Promise<string> {
  const device = world.devices[step.device]!;
  device.skew.ms = step.seconds * 1000;
  return `clock off by ${step.seconds} s; ${await deviceSync(world, step.device)}`;
}

/** Minutes after midnight of a local time `HH:MM`. */
const minutesOf = (local: string): number => {
  const [h, m] = local.split(':').map(Number) as [number, number];
  return h * 60 + m;
};

/** Where an `edge` step moves the clock (null: the type has no hours now). */
export async function edgeInstant(world: World, step: Step & { kind: 'edge' }): Promise<number | null> {
  const { ticket_types: types } = await adminCall<{
    ticket_types: { ticket_type: string; hours: { from: string; until: string } | null }[];
  }>(world.t.app, 'GET', `/admin/v1/events/${world.eid}/ticket-types`);
  const hours = types.find((t) => t.ticket_type === step.type)?.hours;
  if (!hours) return null;
  const cal = await calendarOf(world);
  const now = world.t.clock.now().getTime();
  const after = (minutesOf(hours[step.side]) - minutesOf(cal.day_starts_at) + 1440) % 1440;
  const today = eventDayOf(new Date(now), cal);
  for (let d = 0; d < 3; d++) {
    const at = eventDayStart(dayPlus(today, d), cal).getTime() + after * 60_000 + step.seconds * 1000;
    if (at > now) return at;
  }
  return null;
}
