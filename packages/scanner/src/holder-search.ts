/** Finding a holder by name: where the issuer answers it, and the shape its answer must have. */
import { TICKET_STATES, type FoundHolder, type HolderSearchAnswer } from '@ticket-issuer/protocol';

/** The fewest letters or digits a search takes (the issuer refuses fewer with 400). */
export const MIN_SEARCH_CHARACTERS = 3;

/** The search route of the scanner's event on its issuer (`iss`). */
export function holderSearchUrl(iss: string, eid: string): string {
  return `${iss.replace(/\/+$/, '')}/api/v1/events/${encodeURIComponent(eid)}/tickets/search`;
}

/** How many letters and digits a query holds: what the issuer counts (punctuation and spaces do not). */
export const searchLength = (q: string): number => q.replace(/[^\p{L}\p{N}]/gu, '').length;

const isFoundHolder = (value: unknown): value is FoundHolder => {
  const holder = value as Partial<FoundHolder> | null;
  return (
    typeof holder === 'object' &&
    holder !== null &&
    typeof holder.tid === 'string' &&
    typeof holder.holder_name === 'string' &&
    typeof holder.ticket_type === 'string' &&
    (TICKET_STATES as readonly unknown[]).includes(holder.status) &&
    typeof holder.inside === 'boolean' &&
    typeof holder.attention === 'boolean' &&
    Array.isArray(holder.checkin_texts) &&
    holder.checkin_texts.every((text) => typeof text === 'string')
  );
};

/** Whether an answer is a search's: `{tickets: [...]}`, each ticket with every field. */
export function isHolderSearchAnswer(value: unknown): value is HolderSearchAnswer {
  const tickets = (value as { tickets?: unknown } | null)?.tickets;
  return Array.isArray(tickets) && tickets.every(isFoundHolder);
}
