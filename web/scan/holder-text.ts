/** What **Find by name** says of a holder found: pure, so that it is tested without a browser. */
import type { FoundHolder } from '@ticket-issuer/scanner';

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
