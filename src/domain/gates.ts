import type { GateRecord, Store } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { IssuerError } from './errors.ts';
import { requireEvent } from './events.ts';
import { toStored, toWire } from './time.ts';

/** A gate as the API shows it. */
export function gateView(gate: GateRecord) {
  return { gate_id: gate.gate_id, name: gate.name, admits: gate.admits };
}

/** Declares a gate of an existing event (or replaces its declaration). */
export async function putGate(
  store: Store,
  clock: Clock,
  eid: string,
  gateId: string,
  input: { name: string; admits: string[] | null },
): Promise<GateRecord> {
  await requireEvent(store, eid);
  const gate: GateRecord = {
    eid,
    gate_id: gateId,
    name: input.name,
    admits: input.admits,
    updated_at: toStored(clock.now()),
  };
  await store.events.putGate(gate);
  return gate;
}

/** Removes a gate's declaration; NOT_FOUND when the event or the gate is unknown. */
export async function deleteGate(store: Store, eid: string, gateId: string): Promise<void> {
  await requireEvent(store, eid);
  if (!(await store.events.deleteGate(eid, gateId)))
    throw new IssuerError('NOT_FOUND', 'no gate of this event has this gate_id');
}

/** The gate rule shared with scanners (see @ticket-issuer/protocol). */
export { gateRefusal } from '@ticket-issuer/protocol';

/**
 * The occupancy answer: inside now, the capacity, and entries and exits per gate (declared gates
 * first get their names; declared gates without scans show zeros), read at `now`.
 */
export async function occupancyView(store: Store, eid: string, now: Date) {
  const event = await requireEvent(store, eid);
  const [counts, declared] = await Promise.all([store.checkIns.occupancy(eid), store.events.listGates(eid)]);
  const names = new Map(declared.map((gate) => [gate.gate_id, gate.name]));
  const seen = new Set(counts.gates.map((gate) => gate.gate_id));
  const gates = [
    ...counts.gates.map((gate) => ({
      ...gate,
      name: gate.gate_id === null ? null : (names.get(gate.gate_id) ?? null),
    })),
    ...declared
      .filter((gate) => !seen.has(gate.gate_id))
      .map((gate) => ({ gate_id: gate.gate_id, name: gate.name, entries: 0, exits: 0 })),
  ].sort((a, b) => (a.gate_id ?? '').localeCompare(b.gate_id ?? ''));
  return {
    inside: counts.inside,
    capacity: event.capacity,
    entries: counts.gates.reduce((sum, gate) => sum + gate.entries, 0),
    exits: counts.gates.reduce((sum, gate) => sum + gate.exits, 0),
    as_of: toWire(toStored(now))!,
    gates,
  };
}
