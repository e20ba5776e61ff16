/**
 * The gate rule, one implementation for the issuer's decision and a scanner's offline verdict: a
 * declared gate whose `admits` lists ticket types refuses the others. A gate that is not declared,
 * or that admits every type (`admits: null`), refuses nothing (the spec's meaning of `gate_id`).
 * Ticket types are free text typed by people in two places (the tickets, the gate), so they are
 * compared ignoring case and surrounding spaces: `vip` at the gate admits a `VIP ` ticket.
 */

/** A declared gate as a scanner learns it (`GET /api/v1/events/{eid}/gates`). */
export interface GateRule {
  gate_id: string;
  name?: string;
  admits: readonly string[] | null;
}

/** The answer of the scanner's gates route. */
export interface GatesAnswer {
  gates: GateRule[];
  reentry: boolean;
}

/** Why a gate refuses a ticket (the 403's `details`; the issuer adds the holder's name). */
export interface GateRefusal {
  reason: 'ticket_type_not_admitted';
  gate_id: string;
  ticket_type: string;
  holder_name?: string;
}

/** A ticket type as the gate rule compares it: without surrounding spaces, in lower case. */
export const ticketTypeKey = (ticketType: string): string => ticketType.trim().toLowerCase();

/** Null when `gate` lets `ticketType` in (or is not declared); else why not. */
export function gateRefusal(gate: GateRule | null, ticketType: string): GateRefusal | null {
  if (gate === null || gate.admits === null) return null;
  const wanted = ticketTypeKey(ticketType);
  if (gate.admits.some((admitted) => ticketTypeKey(admitted) === wanted)) return null;
  return { reason: 'ticket_type_not_admitted', gate_id: gate.gate_id, ticket_type: ticketType };
}

/** The declared gates that let `ticketType` in, other than `except`: where to send a refused holder. */
export function gatesAdmitting(
  gates: Iterable<GateRule>,
  ticketType: string,
  except: string | null = null,
): GateRule[] {
  const admitting: GateRule[] = [];
  for (const gate of gates) {
    if (gate.gate_id !== except && gateRefusal(gate, ticketType) === null) admitting.push(gate);
  }
  return admitting;
}
