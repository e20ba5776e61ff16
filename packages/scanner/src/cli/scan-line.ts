/**
 * The words of the CLI's human verdict line that need more than the verdict: the holder, when and
 * where a used ticket went in, and where a holder turned away at this gate should go instead.
 */
import { gatesAdmitting, type GateRule } from '@ticket-issuer/protocol';
import type { ScanResult } from '../scan-result.ts';
import { readToken } from '../token.ts';

/** What the device knows beside a verdict: the event's gates, the scan's gate, the scanned code. */
export interface LineContext {
  gates?: readonly GateRule[];
  /** The gate the scan was made at (the key's, or `--gate`), or null. */
  gate?: string | null;
  /** The scanned code, for the ticket type it names when the answer carries none. */
  token?: string;
}

/** An instant as the issuer writes it, without a fraction of zero: `2026-07-03T10:30:00Z`. */
const instant = (value: string) => value.replace(/\.000Z$/, 'Z');

/** Names in a sentence: "A", "A or B", "A, B or C". */
const either = (names: string[]) =>
  names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;

/** The ticket type the answer names, else the one the scanned code names (unverified: for words only). */
function typeOf(r: ScanResult, ctx: LineContext): string | null {
  if (r.ticket?.ticket_type) return r.ticket.ticket_type;
  const type = ctx.token === undefined ? undefined : readToken(ctx.token)?.payload.ticket_type;
  return typeof type === 'string' ? type : null;
}

/** `used 2026-07-03T10:30:00Z at gate main`: when and where an `already_used` ticket went in, as far as known. */
function usedWords(r: ScanResult): string | null {
  const at = r.ticket?.checked_in_at;
  const gate = r.ticket?.checked_in_gate;
  if (!at && !gate) return null;
  return ['used', at ? instant(at) : null, gate ? `at gate ${gate}` : null].filter(Boolean).join(' ');
}

/** `not for gate north: go to gate main or gate south`: where a holder this gate refused may go in. */
function gateWords(r: ScanResult, ctx: LineContext): string {
  const here = ctx.gate ? `not for gate ${ctx.gate}` : 'not for this gate';
  const type = typeOf(r, ctx);
  const gates = ctx.gates ?? [];
  const elsewhere = type === null ? [] : gatesAdmitting([...gates], type, ctx.gate ?? null);
  if (elsewhere.length > 0) return `${here}: go to ${either(elsewhere.map((g) => `gate ${g.gate_id}`))}`;
  return `${here}: go to a gate that admits ${type ?? 'this ticket'}`;
}

/** The line's words after the source: where a used ticket went in, or where a refused holder should go. */
export function placeWords(r: ScanResult, ctx: LineContext): string | null {
  if (r.verdict !== 'reject') return null;
  if (r.reason === 'already_used') return usedWords(r);
  if (r.reason === 'ticket_type_not_admitted' || r.reason === 'FORBIDDEN') return gateWords(r, ctx);
  return null;
}
