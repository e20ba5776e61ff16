import type { TicketTypeRules } from '@ticket-issuer/protocol';
import { type Row, TICKET_TYPES_SQL, toGate, toTicketTypeRules } from '../rows.ts';
import type { GateRecord } from '../store.ts';
import { all, type Db, numbered, one } from './queries.ts';

const TICKET_TYPES = numbered(TICKET_TYPES_SQL);

/** Declares a gate, or replaces the declaration of that gate_id. */
export async function putGate(db: Db, g: GateRecord): Promise<void> {
  await db.query(
    `INSERT INTO gates (eid, gate_id, name, admits, updated_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (eid, gate_id) DO UPDATE SET name = excluded.name, admits = excluded.admits, updated_at = excluded.updated_at`,
    [g.eid, g.gate_id, g.name, g.admits === null ? null : JSON.stringify(g.admits), g.updated_at],
  );
}

export async function getGate(db: Db, eid: string, gateId: string): Promise<GateRecord | null> {
  const row = await one<Row>(db, 'SELECT * FROM gates WHERE eid = $1 AND gate_id = $2', [eid, gateId]);
  return row ? toGate(row) : null;
}

export async function listGates(db: Db, eid: string): Promise<GateRecord[]> {
  return (await all<Row>(db, 'SELECT * FROM gates WHERE eid = $1 ORDER BY gate_id', [eid])).map(toGate);
}

export async function deleteGate(db: Db, eid: string, gateId: string): Promise<boolean> {
  const result = await db.query('DELETE FROM gates WHERE eid = $1 AND gate_id = $2', [eid, gateId]);
  return (result.rowCount ?? 0) > 0;
}

export async function listTicketTypes(db: Db, eid: string): Promise<TicketTypeRules[]> {
  return (await all<Row>(db, TICKET_TYPES, [eid])).map(toTicketTypeRules);
}
