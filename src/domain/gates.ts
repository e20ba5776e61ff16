import type { GateRecord, Store } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { IssuerError } from './errors.ts';
import { requireEvent } from './events.ts';
import { toStored } from './time.ts';

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
  await store.putGate(gate);
  return gate;
}

/** Removes a gate's declaration; NOT_FOUND when the event or the gate is unknown. */
export async function deleteGate(store: Store, eid: string, gateId: string): Promise<void> {
  await requireEvent(store, eid);
  if (!(await store.deleteGate(eid, gateId)))
    throw new IssuerError('NOT_FOUND', 'no gate of this event has this gate_id');
}

/** The gate rule shared with scanners (see @ticket-issuer/protocol). */
export { gateRefusal } from '@ticket-issuer/protocol';
