/**
 * Find by name and a ticket's group, answered by the roster when the issuer cannot answer: each
 * holder as the issuer's search would show them (state, inside, the notes for the gate), by what the
 * device knows (the feed, its own scans), so that the rules' refusal can be said before one is chosen.
 */
import { type FoundHolder, gateNotes, rulesFor } from '@ticket-issuer/protocol';
import { holderOnDevice } from './device-knowledge.ts';
import { ScannerError } from './errors.ts';
import type { GroupAnswer } from './group.ts';
import { MIN_SEARCH_CHARACTERS, searchLength } from './holder-search.ts';
import type { NamedHolder } from './holder-judgement.ts';
import type { Roster, RosterLine } from './roster.ts';
import type { ScanContext, ScanResult } from './scan-result.ts';

/** Where an answer about holders came from: the issuer, or this device's roster. */
export type HolderSource = 'issuer' | 'roster';

/** Find by name's answer, and where it came from. */
export interface FoundHolders {
  tickets: FoundHolder[];
  source: HolderSource;
}

/** A roster line as the issuer's search would show its holder now, by what the device knows. */
export function holderFromRoster(ctx: ScanContext, line: RosterLine): FoundHolder {
  const where = holderOnDevice(ctx, line.tid);
  const revoked = line.revoked || ctx.knowledge.revoked.has(line.tid);
  const own = ctx.knowledge.notes?.get(line.tid) ?? line;
  return {
    tid: line.tid,
    holder_name: line.holder_name,
    ticket_type: line.ticket_type,
    status: revoked ? 'revoked' : where === 'unused' ? 'valid' : 'checked_in',
    inside: where === 'inside',
    ...gateNotes(rulesFor(ctx.rules.ticketTypes, line.ticket_type), own),
  };
}

/** A roster line as a holder to judge: the device's knowledge, and the line's own notes. */
export function namedFromRoster(line: RosterLine): NamedHolder {
  return {
    tid: line.tid,
    ticket_type: line.ticket_type,
    ...(line.revoked ? { status: 'revoked' as const } : {}),
    own: { attention: line.attention, checkin_text: line.checkin_text },
  };
}

/** A query too short for the issuer is too short here too (the issuer answers it 400). */
export function checkQuery(q: string): void {
  if (searchLength(q) < MIN_SEARCH_CHARACTERS) {
    throw new ScannerError('INVALID_OPTION', `q must hold at least ${MIN_SEARCH_CHARACTERS} letters or digits`);
  }
}

/** Without a roster of names, nothing can be found offline. */
function requireNames(roster: Roster, what: string): void {
  if (roster.kind !== 'roster') {
    throw new ScannerError('ISSUER_UNREACHABLE', `${what} needs the issuer: this device holds no roster of names`);
  }
}

/** Find by name from the roster: at most 10 holders, ranked as the issuer ranks them. */
export function findOffline(ctx: ScanContext, roster: Roster, q: string): FoundHolders {
  checkQuery(q);
  requireNames(roster, 'Find by name');
  return { tickets: roster.find(q).map((line) => holderFromRoster(ctx, line)), source: 'roster' };
}

/** A ticket's group from the roster (itself first); a ticket the roster does not hold: INVALID_OPTION. */
export function groupOffline(ctx: ScanContext, roster: Roster, tid: string): GroupAnswer {
  requireNames(roster, 'A group');
  const group = roster.group(tid);
  if (group === null) throw new ScannerError('INVALID_OPTION', 'this device’s roster does not hold that ticket');
  return {
    order_ref: group.order_ref,
    tickets: group.tickets.map((line) => holderFromRoster(ctx, line)),
    source: 'roster',
  };
}

/**
 * Verdicts the device gave on its own (`source: 'offline'`) with the holder's name from the roster
 * where the token told none: a signed ticket carries no name, the roster does. `read`: the roster if
 * it was read already, else null (then nothing is read for a name).
 */
export async function namedByRoster(results: ScanResult[], read: Promise<Roster> | null): Promise<ScanResult[]> {
  if (read === null || !results.some((r) => r.source === 'offline')) return results;
  const roster = await read;
  if (roster.kind !== 'roster') return results;
  return results.map((result) => {
    const line = result.tid === null ? undefined : roster.tickets.get(result.tid);
    if (result.source !== 'offline' || !result.ticket || result.ticket.holder_name !== null || !line) return result;
    return { ...result, ticket: { ...result.ticket, holder_name: line.holder_name } };
  });
}
