/** What **Find by name** says of a holder found: pure, so that it is tested without a browser. */
import type { FoundHolder, ScanResult } from '@ticket-issuer/scanner';
import { verdictText, type VerdictContext } from './verdict-text.ts';

/** Where the holder is, in words: the first thing staff need before letting someone in by name. */
export function whereHolderIs(holder: Pick<FoundHolder, 'status' | 'inside'>): string {
  if (holder.status === 'revoked') return 'revoked';
  if (holder.status === 'expired') return 'expired';
  if (holder.inside) return 'inside now';
  return holder.status === 'checked_in' ? 'came in, out now' : 'not in yet';
}

/**
 * A found holder's lines beside the name: the ticket type and where they are; then, when the holder
 * needs attention or the gate has texts for them, "Attention" in words (not by colour alone) and the texts.
 */
export function holderFacts(holder: FoundHolder): { line: string; attention: string | null } {
  const line = `${holder.ticket_type} · ${whereHolderIs(holder)}`;
  const texts = holder.checkin_texts.join(' · ');
  if (holder.attention) return { line, attention: texts === '' ? 'Attention' : `Attention: ${texts}` };
  return { line, attention: texts === '' ? null : texts };
}

/** How the rules would answer a holder now, as the scanner package judges it (see `judgeHolder`). */
export interface Judged {
  outcome: string;
  refusal: ScanResult['refusal'] | null;
}

/**
 * Why the rules would refuse a holder now, said before staff choose them ("Would be refused: already
 * used."), with what the verdict screen would advise; null when they would be let in.
 */
export function refusalBeforehand(judged: Judged | null, context: VerdictContext = {}): string | null {
  if (judged === null || judged.outcome === 'valid') return null;
  const as: ScanResult = {
    verdict: 'reject',
    reason: judged.outcome,
    tid: null,
    source: 'offline',
    idempotency_key: '',
    issuer_contact: 'not_asked',
    attention: false,
    checkin_texts: [],
    ...(judged.refusal ? { refusal: judged.refusal } : {}),
  };
  const text = verdictText(as, context);
  return [`Would be refused: ${text.reason ?? 'not valid'}.`, text.advice].filter(Boolean).join(' ');
}
