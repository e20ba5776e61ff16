/**
 * A short code typed at the exit: resolved as at the entry (the issuer online, else the roster or the
 * digests), then the holder is let out by the ticket's tid, without a token (the spec's plain body,
 * as a typed entry is sent). The device judges on the shared rule (`exitOutcome`) from what it knows
 * of the holder: a revoked ticket goes out, a holder it knows is not inside is `not_inside`.
 */
import { DEFAULT_EVENT_RULES, exitOutcome, gateNotes, holderAtScan, rulesFor } from '@ticket-issuer/protocol';
import { entriesOf, holderOnDevice } from './device-knowledge.ts';
import { exitScan, sendExit } from './exit.ts';
import type { CodeTicket } from './named-scan.ts';
import { unknownCode } from './named-scan.ts';
import type { Roster } from './roster.ts';
import { offlineResult, offlineTicket } from './scan.ts';
import type { IssuerContact, ScanContext, ScanResult } from './scan-result.ts';
import { byCode } from './typed-code.ts';
import type { OfflineVerdict } from './verdict.ts';

/** The device's verdict on letting a ticket's holder out, known by its tid. */
function exitVerdict(ctx: ScanContext, tid: string, ticketType: string | null, scannedAt: Date): OfflineVerdict {
  const rules = ctx.rules;
  const event = { ...DEFAULT_EVENT_RULES, ...rules.event, auto_exit: rules.autoExit };
  const holder = holderAtScan(holderOnDevice(ctx, tid), entriesOf(ctx, tid), scannedAt.toISOString(), event);
  const revoked = ctx.knowledge.revoked.has(tid);
  const outcome = exitOutcome({
    signatureValid: true,
    sameEvent: true,
    revoked,
    holder,
    expired: false,
    ticketType: ticketType ?? '',
  });
  const type = ticketType === null ? null : rulesFor(rules.ticketTypes, ticketType);
  const own = ctx.knowledge.notes?.get(tid) ?? { attention: false, checkin_text: null };
  const verdict = outcome === 'checked_out' || outcome === 'revoked' ? 'exit' : 'reject';
  return { verdict, reason: outcome, tid, claims: null, refusal: null, ...gateNotes(type, own) };
}

/** Lets a resolved ticket's holder out: sent online (`ask`), else queued on the device's verdict. */
async function exitTicket(
  ctx: ScanContext,
  ticket: CodeTicket,
  gate: string | null,
  ask: boolean,
  contact: IssuerContact,
): Promise<ScanResult> {
  const scannedAt = ctx.now();
  const local = exitVerdict(ctx, ticket.tid, ticket.ticket_type, scannedAt);
  const scan = {
    ...exitScan('', { ...local, tid: ticket.tid }, scannedAt, gate),
    send_token: false,
    typed: true as const,
  };
  if (ask) {
    const result = await sendExit(ctx, scan, local, ticket.ticket_type);
    const shown = result.ticket ?? offlineTicket(ctx, scan, ticket.ticket_type);
    return { ...result, ticket: { ...shown, holder_name: shown.holder_name ?? ticket.holder_name } };
  }
  await ctx.queue.record([scan]);
  const shown = { ...offlineTicket(ctx, scan, ticket.ticket_type), holder_name: ticket.holder_name };
  return offlineResult(ctx, scan, shown, contact, local);
}

/** An exit by a typed code: online first unless `offline`, else (or without an answer) on the device. */
export async function exitCode(
  ctx: ScanContext,
  roster: Roster,
  eventUrl: string,
  typed: string,
  gate: string | null,
  offline: boolean,
): Promise<ScanResult> {
  const here = async (contact: IssuerContact) => {
    const found = await roster.resolve(typed);
    if (found === null) return unknownCode('offline', contact);
    const ticket = { tid: found.tid, holder_name: found.line?.holder_name ?? null, ticket_type: found.ticket_type };
    return exitTicket(ctx, ticket, gate, false, contact);
  };
  if (offline) return here('not_asked');
  return byCode(
    ctx,
    eventUrl,
    typed,
    (ticket) => exitTicket(ctx, ticket, gate, true, 'answered'),
    () => here('failed'),
  );
}
