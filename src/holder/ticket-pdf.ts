import type { HolderTicket } from './holder-ticket.ts';
import { ticketPdfSteps } from './pdf-layout.ts';
import type { PdfPool } from './pdf-pool.ts';

/** The PDF's title: the event and the holder. */
export const ticketPdfTitle = (holder: HolderTicket): string =>
  `${holder.words.event}: ticket of ${holder.words.holder}`;

/**
 * The ticket as a one-page PDF (A4): the holder page's words and QR code, drawn on the pool's
 * threads. 503 `UNAVAILABLE` when the pool is busy.
 */
export function ticketPdf(pool: PdfPool, holder: HolderTicket): Promise<Buffer> {
  return pool.draw(ticketPdfTitle(holder), ticketPdfSteps(holder));
}

/** Letters that no decomposition turns into ASCII. */
const LETTERS: Record<string, string> = { ł: 'l', Ł: 'L', ø: 'o', Ø: 'O', đ: 'd', Đ: 'D', ß: 'ss', æ: 'ae', Æ: 'AE' };
/** Made from the keys, so that the built bundle stays ASCII (V8 keeps a source with one other character as two bytes each). */
const SPECIAL_LETTERS = new RegExp(`[${Object.keys(LETTERS).join('')}]`, 'g');

/**
 * A file name any system takes: `ticket-<event in ASCII letters and digits>-<tid>.pdf` (the event's
 * name cut to 40 characters, accents dropped, anything else a hyphen).
 */
export function ticketPdfFileName(holder: HolderTicket): string {
  const event = holder.event.name
    .replace(SPECIAL_LETTERS, (c) => LETTERS[c] ?? '-')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '')
    .toLowerCase();
  return `ticket-${event === '' ? '' : `${event}-`}${holder.ticket.tid}.pdf`;
}
