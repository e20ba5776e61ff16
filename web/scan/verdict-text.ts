/**
 * What the verdict screen says: the contract's words for each outcome, the holder and ticket type,
 * and when and where a used ticket was checked in. Pure, so that it is tested without a browser.
 */
import type { ScanResult } from '@ticket-issuer/scanner';

/** The reasons' words, by the spec's outcome or the issuer's error code. */
const REASON_WORDS: Record<string, string> = {
  already_used: 'already used',
  revoked: 'revoked',
  wrong_event: 'wrong event',
  expired: 'expired',
  invalid_signature: 'not valid',
  // A ticket the issuer does not know, or a scan it refused: nobody goes in on it.
  NOT_FOUND: 'not valid',
  INVALID_REQUEST: 'not valid',
  FORBIDDEN: 'not admitted at this gate',
  ticket_type_not_admitted: 'not admitted at this gate',
  not_inside: 'not inside',
};

/** The lines of a verdict: the word (Admit or Reject), the reason, who, and how it was decided. */
export interface VerdictText {
  word: 'Admit' | 'Exit' | 'Reject';
  reason: string | null;
  who: string | null;
  source: string;
}

/** "18:02" today, "24 Nov 18:02" another day, in the device's locale and time zone. */
export function formatWhen(iso: string, now: Date = new Date(), locale?: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const time = at.toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit' });
  if (at.toDateString() === now.toDateString()) return time;
  return `${at.toLocaleDateString(locale, { day: 'numeric', month: 'short' })} ${time}`;
}

export function verdictText(result: ScanResult, now: Date = new Date(), locale?: string): VerdictText {
  const admit = result.verdict === 'admit';
  const exit = result.verdict === 'exit';
  // A holder let out is said so; a revoked ticket's holder leaving is let out too, and told why.
  let reason: string | null =
    admit || (exit && result.reason !== 'revoked') ? null : (REASON_WORDS[result.reason] ?? 'not valid');
  const ticket = result.ticket;
  if (result.reason === 'already_used' && ticket) {
    if (ticket.checked_in_at) reason += ` at ${formatWhen(ticket.checked_in_at, now, locale)}`;
    if (ticket.checked_in_gate) reason += ` at gate ${ticket.checked_in_gate}`;
  }
  const who = [ticket?.holder_name, ticket?.ticket_type].filter((part): part is string => !!part).join(' · ');
  return {
    word: admit ? 'Admit' : exit ? 'Exit' : 'Reject',
    reason,
    who: who === '' ? null : who,
    source: result.source === 'offline' ? 'Decided on this device (offline)' : 'Checked by the issuer',
  };
}

/** The setup URI inside what was typed, pasted or scanned: the URI itself, or a /scan/#setup= link. */
export function setupUriFrom(input: string): string {
  const text = input.trim();
  const mark = text.indexOf('#setup=');
  if (mark === -1) return text;
  const encoded = text.slice(mark + '#setup='.length);
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}
