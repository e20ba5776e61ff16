/**
 * The differential probe: at one moment T, every device that has just synced (a new one, and each of
 * the history's own) scans each ticket offline, and then the issuer answers the same scan online
 * (a fresh idempotency key). Their answers are put in one vocabulary: admit or reject, the reason, and
 * the ticket's `entries` where an answer carries it.
 */
import { randomUUID } from 'node:crypto';
import type { ScanResult } from '../../packages/scanner/src/index.ts';
import { typedCode } from './code-steps.ts';
import { type Device, newDevice, type World } from './world.ts';

/** One answer in the vocabulary both sides share. */
export interface Verdict {
  verdict: 'admit' | 'reject';
  reason: string;
  /** The ticket's entries, the scan included when admitted; null where the answer does not say. */
  entries: number | null;
  /** How the device was shown the ticket, where not by its token. */
  mode?: ProbeMode;
}

/** A device's offline verdict in the shared vocabulary. */
export function deviceVerdict(result: ScanResult): Verdict {
  return {
    verdict: result.verdict === 'admit' ? 'admit' : 'reject',
    reason: result.reason,
    entries: result.entries ?? null,
  };
}

interface IssuerAnswer {
  status?: string;
  ticket?: { entries?: number } | null;
  error?: { code: string; details: { reason?: string; entries?: number } };
}

/** The issuer's answer to a check-in in the shared vocabulary: its status, or its refusal's reason. */
export function issuerVerdict(statusCode: number, body: IssuerAnswer): Verdict {
  if (statusCode === 200 || body.status === 'invalid_signature') {
    return {
      verdict: body.status === 'valid' ? 'admit' : 'reject',
      reason: body.status!,
      entries: body.ticket?.entries ?? null,
    };
  }
  const details = body.error?.details ?? {};
  return {
    verdict: 'reject',
    reason: details.reason ?? `${statusCode} ${body.error?.code}`,
    entries: details.entries ?? null,
  };
}

/** What one device said of one ticket, beside what the issuer said. */
export interface ProbeRow {
  ticket: number;
  /** `new device`, or `device N` of the history. */
  device: string;
  offline: Verdict;
  online: Verdict;
}

/** Where device and issuer disagree; entries are compared only where both carry them. */
export function disagrees(row: ProbeRow): boolean {
  const { offline, online } = row;
  if (offline.verdict !== online.verdict || offline.reason !== online.reason) return true;
  return offline.entries !== null && online.entries !== null && offline.entries !== online.entries;
}

/** The issuer's answer to an entry of `ticket` at the probe gate, now, under `device`'s key. */
async function askIssuer(world: World, device: Device, ticket: number): Promise<Verdict> {
  const { tid, token } = world.tickets[ticket]!;
  const res = await world.t.app.inject({
    method: 'POST',
    url: '/api/v1/tickets/check-in',
    headers: { authorization: `Bearer ${device.apiKey}` },
    payload: {
      tid,
      eid: world.eid,
      scanned_at: world.t.clock.now().toISOString(),
      scanner_id: device.scannerId,
      gate_id: world.gates[world.history.probeGate]!,
      idempotency_key: randomUUID(),
      ticket_token: token,
    },
  });
  return issuerVerdict(res.statusCode, res.json() as IssuerAnswer);
}

/**
 * The history's devices sync twice: every device uploads, then every device pulls what all the
 * others uploaded. Those left with nothing queued and a complete sync take part in the probe.
 */
export async function syncAll(world: World): Promise<{ name: string; device: Device }[]> {
  for (const device of world.devices) await device.scanner.sync();
  const synced: { name: string; device: Device }[] = [];
  for (const [n, device] of world.devices.entries()) {
    const result = await device.scanner.sync();
    if (result.problem === null && result.remaining === 0) synced.push({ name: `device ${n}`, device });
  }
  return synced;
}

/** How a device scans a ticket in the probe: its token, its typed short code, or as a member of its group. */
export type ProbeMode = 'token' | 'code' | 'group';
const MODES: readonly ProbeMode[] = ['token', 'code', 'group'];

/**
 * One scan of the probe, offline at `gate`. A group's member is chosen from the group the device's
 * roster tells (a device without the roster types the code instead).
 */
async function probeScan(
  world: World,
  device: Device,
  ticket: number,
  mode: ProbeMode,
  gate: string,
): Promise<{ result: ScanResult; mode: ProbeMode }> {
  const { tid, token, code } = world.tickets[ticket]!;
  if (mode === 'group' && (await device.scanner.rosterKind()) === 'roster') {
    const group = await device.scanner.group(tid, { offline: true });
    const [result] = await device.scanner.checkInGroup(
      group.tickets.filter((t) => t.tid === tid),
      { gate },
    );
    return { result: result!, mode };
  }
  const input = mode === 'token' ? token : typedCode(code, world.history.setup.codeForm);
  const [result] = await device.scanner.scan([input], { offline: true, gate });
  return { result: result!, mode: mode === 'token' ? 'token' : 'code' };
}

/**
 * At one moment, a new device (enrolled now: its first sync) and the synced `devices` judge every
 * ticket offline at the probe gate (the history's devices by token, typed code or group in turn), then
 * the issuer is asked online: one row per device and ticket.
 */
export async function probe(world: World, synced: { name: string; device: Device }[]): Promise<ProbeRow[]> {
  const { t } = world;
  t.clock.advance(10_000);
  const fresh = await newDevice(t, world.eid);
  const devices = [{ name: 'new device', device: fresh }, ...synced];
  try {
    const gate = world.gates[world.history.probeGate]!;
    const offline = new Map<string, Verdict>();
    for (const ticket of world.tickets.keys()) {
      for (const [n, { name, device }] of devices.entries()) {
        // The new device scans tokens; the history's devices take turns at each way in.
        const asked = n === 0 ? 'token' : MODES[(n + ticket) % MODES.length]!;
        const { result, mode } = await probeScan(world, device, ticket, asked, gate);
        offline.set(`${ticket}/${name}`, { ...deviceVerdict(result), ...(mode === 'token' ? {} : { mode }) });
      }
    }
    const rows: ProbeRow[] = [];
    for (const ticket of world.tickets.keys()) {
      const online = await askIssuer(world, fresh, ticket);
      for (const { name } of devices) {
        rows.push({ ticket, device: name, offline: offline.get(`${ticket}/${name}`)!, online });
      }
    }
    return rows;
  } finally {
    await fresh.scanner.close();
  }
}
