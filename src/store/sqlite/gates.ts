import { type Row, TICKET_TYPES_SQL, toGate, toTicketTypeRules } from '../rows.ts';
import type { TicketTypeRules } from '@ticket-issuer/protocol';
import type { GateRecord } from '../store.ts';
import type { SqliteContext } from './context.ts';

export function putGate(c: SqliteContext, g: GateRecord): Promise<void> {
  return c.tx(() => {
    c.run(
      `INSERT INTO gates (eid, gate_id, name, admits, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (eid, gate_id) DO UPDATE SET name = excluded.name, admits = excluded.admits, updated_at = excluded.updated_at`,
      g.eid,
      g.gate_id,
      g.name,
      g.admits === null ? null : JSON.stringify(g.admits),
      g.updated_at,
    );
  });
}

export async function getGate(c: SqliteContext, eid: string, gateId: string): Promise<GateRecord | null> {
  const row = c.one<Row>('SELECT * FROM gates WHERE eid = ? AND gate_id = ?', eid, gateId);
  return row ? toGate(row) : null;
}

export async function listGates(c: SqliteContext, eid: string): Promise<GateRecord[]> {
  return c.all<Row>('SELECT * FROM gates WHERE eid = ? ORDER BY gate_id', eid).map(toGate);
}

export function deleteGate(c: SqliteContext, eid: string, gateId: string): Promise<boolean> {
  return c.tx(() => c.run('DELETE FROM gates WHERE eid = ? AND gate_id = ?', eid, gateId) > 0);
}

export async function listTicketTypes(c: SqliteContext, eid: string): Promise<TicketTypeRules[]> {
  return c.all<Row>(TICKET_TYPES_SQL, eid).map(toTicketTypeRules);
}
