/**
 * The steps a history's devices take through the scanner package itself: entries and exits decided
 * offline and queued, or sent online by the device, undos (online, or queued for the next upload), and
 * the device's sync (its upload, then the feed and the rules).
 */
import type { Step } from './history.ts';
import { latest } from './guards.ts';
import type { World } from './world.ts';

type DeviceScan = Step & { kind: 'offlineIn' | 'offlineOut' | 'deviceIn' | 'deviceOut' };

/** A scan on a device, offline or online; its verdict. Admissions are kept for the undos. */
export async function deviceScan(world: World, step: DeviceScan): Promise<string> {
  const device = world.devices[step.device]!;
  const { tid, token } = world.tickets[step.ticket]!;
  const offline = step.kind === 'offlineIn' || step.kind === 'offlineOut';
  const options = { offline, gate: world.gates[step.gate]! };
  const entry = step.kind === 'offlineIn' || step.kind === 'deviceIn';
  const [result] = entry ? await device.scanner.scan([token], options) : await device.scanner.exit([token], options);
  if (result!.verdict === 'admit') {
    const at = world.t.clock.now().toISOString();
    world.deviceAdmits.push({ device: step.device, key: result!.idempotency_key!, tid, at });
  }
  return `${result!.verdict} ${result!.reason} (${result!.source})`;
}

/** A device undoes one of its admissions: online (the issuer answers), or queued for its next upload. */
export async function deviceUndo(world: World, pick: number, queued: boolean): Promise<string> {
  const entry = latest(world.deviceAdmits, pick);
  if (entry === undefined) return 'no admission of a device';
  const result = await world.devices[entry.device]!.scanner.annul(entry.key, { offline: queued });
  return result.annulled ? result.source : `refused ${result.reason} (${result.source})`;
}

/** A device's sync: what it uploaded and how the issuer answered. */
export async function deviceSync(world: World, device: number): Promise<string> {
  const result = await world.devices[device]!.scanner.sync();
  if (result.problem !== null) throw new Error(`sync: ${result.problem.message}`);
  const answered = Object.entries(result.outcomes).filter(([, n]) => n > 0);
  return `uploaded ${result.uploaded} ${JSON.stringify(Object.fromEntries(answered))} refused ${result.refused}`;
}
