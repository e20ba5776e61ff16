/**
 * A short code typed where a token is accepted (`K7M2P-9QX4T`, any case, dashes and spaces ignored).
 * Online the issuer resolves it (`GET …/tickets/by-code/{code}`) and the ticket is checked in by its
 * tid; without an answer, or offline, the roster (or the digests) resolves it and the device judges.
 * An unknown code answers as an unknown ticket does.
 */
import { normalShortCode } from '@ticket-issuer/protocol';
import { IssuerHttpError, isKeyRejected, isTransient, ScannerError } from './errors.ts';
import type { NamedHolder } from './holder-judgement.ts';
import { namedFromRoster } from './holder-lookup.ts';
import { NO_ANSWER } from './manual.ts';
import { checkInTyped, type CodeTicket, unknownCode } from './named-scan.ts';
import type { Roster } from './roster.ts';
import type { KnownRules } from './rules.ts';
import type { IssuerContact, ScanContext, ScanResult } from './scan-result.ts';

/** Two halves of five, apart or not (dashes, spaces): how a short code is printed and typed. */
const CODE_SHAPE = /^\s*[0-9a-z]{5}[\s-]*[0-9a-z]{5}\s*$/i;

/**
 * Whether scanned or typed input is a short code: two halves of five letters or digits that read as
 * one. Other text with ten letters between its dashes (`not-a-ticket`) stays text that is no ticket,
 * answered at once without asking the issuer.
 */
export const isShortCode = (input: string): boolean => CODE_SHAPE.test(input) && normalShortCode(input) !== null;

/** The issuer's ticket for a typed code; null when it has none (404). */
export async function askByCode(ctx: ScanContext, eventUrl: string, typed: string): Promise<CodeTicket | null> {
  try {
    const answer = (await ctx.client.read(
      `${eventUrl}/tickets/by-code/${encodeURIComponent(normalShortCode(typed)!)}`,
      ctx.onlineTimeoutMs,
    )) as Partial<CodeTicket>;
    if (typeof answer.tid !== 'string') throw new ScannerError('INVALID_ANSWER', 'by-code answer without its tid');
    return { tid: answer.tid, holder_name: answer.holder_name ?? null, ticket_type: answer.ticket_type ?? null };
  } catch (error) {
    if (error instanceof IssuerHttpError && error.status === 404) return null;
    throw error;
  }
}

/** Whether a ticket's type could change a verdict: a declared type's rules, or a gate admitting some types. */
const typeBound = (rules: KnownRules): boolean =>
  rules.ticketTypes.length > 0 || [...rules.gates.values()].some((gate) => gate.admits !== null);

/** A code the device cannot judge without the issuer: nobody is let in, nothing is queued (as `no_answer`). */
const undecided = (tid: string, contact: IssuerContact): ScanResult => ({
  verdict: 'reject',
  reason: NO_ANSWER,
  tid,
  source: 'offline',
  idempotency_key: null,
  issuer_contact: contact,
  attention: false,
  checkin_texts: [],
});

/** Resolves and judges a typed code on the device alone (`contact`: what asking the issuer came to). */
async function scanCodeHere(
  ctx: ScanContext,
  roster: Roster,
  typed: string,
  gate: string | null,
  contact: IssuerContact,
): Promise<ScanResult> {
  const found = await roster.resolve(typed);
  if (found === null) return unknownCode('offline', contact);
  const { line, ticket_type: type } = found;
  // A digest kept without its type (an older issuer's) is not judged by a guess where a type could matter.
  if (type === null && typeBound(ctx.rules)) return undecided(found.tid, contact);
  // Known by its digest: no name on the device, but its type, whose rules judge it.
  const holder: NamedHolder = line ? namedFromRoster(line) : { tid: found.tid, ticket_type: type ?? '' };
  const ticket = { tid: found.tid, holder_name: line?.holder_name ?? null, ticket_type: type };
  return checkInTyped(ctx, ticket, holder, gate, false, contact);
}

/** Scans a typed short code: online first unless `offline`, else (or without an answer) on the device. */
export async function scanCode(
  ctx: ScanContext,
  roster: Roster,
  eventUrl: string,
  typed: string,
  gate: string | null,
  offline: boolean,
): Promise<ScanResult> {
  if (offline) return scanCodeHere(ctx, roster, typed, gate, 'not_asked');
  return byCode(
    ctx,
    eventUrl,
    typed,
    (ticket) => {
      const line = roster.tickets.get(ticket.tid);
      const holder: NamedHolder = line
        ? namedFromRoster(line)
        : { tid: ticket.tid, ticket_type: ticket.ticket_type ?? '' };
      return checkInTyped(ctx, ticket, holder, gate, true);
    },
    () => scanCodeHere(ctx, roster, typed, gate, 'failed'),
  );
}

/**
 * A typed code asked of the issuer: `found` with the ticket it names, an unknown ticket's answer when it
 * names none, and `here` (the device's own judgement) on a failure without the issuer's answer.
 */
export async function byCode(
  ctx: ScanContext,
  eventUrl: string,
  typed: string,
  found: (ticket: CodeTicket) => Promise<ScanResult>,
  here: () => Promise<ScanResult>,
): Promise<ScanResult> {
  let ticket: CodeTicket | null;
  try {
    ticket = await askByCode(ctx, eventUrl, typed);
  } catch (error) {
    if (isKeyRejected(error) || !isTransient(error)) throw error;
    return here();
  }
  return ticket === null ? unknownCode('issuer', 'answered') : found(ticket);
}
