import type { HolderTicket } from './holder-ticket.ts';
import { fontFor } from './pdf-fonts.ts';

/**
 * One step of drawing the PDF, as the PDF thread carries it out with pdfkit: a line of text, or the QR
 * code of a text (its matrix made on the thread: dark squares, a quiet zone of 4 modules, `side` points).
 */
export type PdfStep = { text: string; font: string; size: number; gap: number } | { qr: string; side: number };

/** An A4 page's width in points, and the margin kept on every side. */
export const PAGE_WIDTH = 595.28;
export const MARGIN = 50;
/** The QR code's side on paper, in points (about 7.8 cm). */
const QR_SIDE = 220;

/** A line (or paragraph) of text in the font that draws it, `gap` points of space after it. */
function line(text: string, size: number, gap = 4): PdfStep {
  return { ...fontFor(text), size, gap };
}

/**
 * The ticket's one page: the same words as the holder page (event, date, status, holder, type, the
 * days and hours) and the same QR code with the token as text below it; a revoked ticket has none.
 * Every field is bounded (names 200 characters, the token a few hundred), so it fits one A4 page.
 */
export function ticketPdfSteps(holder: HolderTicket): PdfStep[] {
  const { words } = holder;
  const steps: PdfStep[] = [
    line(words.event, 20, 2),
    line(words.when, 11, 10),
    line(words.status, 16, 10),
    line(`Holder: ${words.holder}`, 13),
    line(`Ticket type: ${words.ticketType}`, 13, 8),
    ...words.validity.map((text) => line(text, 11, 2)),
  ];
  if (holder.qrToken === null) {
    steps.push(line('This ticket was revoked: it admits nobody, and has no QR code.', 12));
    return steps;
  }
  steps.push({ qr: holder.qrToken, side: QR_SIDE });
  steps.push(line(holder.qrToken, 6, 8));
  steps.push(line('Show this QR code at the entrance, on paper or on a screen.', 10));
  return steps;
}
