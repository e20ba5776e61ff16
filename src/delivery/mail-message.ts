/**
 * One ticket's email: who it goes to, what it says (text and HTML), and its PDF. The words are put
 * together here; the PDF is drawn, the MIME message built around it (base64 and all) and sent on the
 * mail's thread (`mail-thread.ts`), so the event loop only hands over a few strings.
 */
import type { PdfStep } from '../holder/pdf-layout.ts';

/** What a ticket's email says, read when it is sent. */
export interface TicketMailWords {
  to: string;
  from: string;
  eventName: string;
  holderName: string;
  holderUrl: string;
}

/** An email's headers and parts, as the mail's thread builds its MIME message around the PDF it draws. */
export interface MailParts {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The attached PDF's file name. */
  filename: string;
}

/** A ticket's email as composed on the event loop: its words, and the steps of the PDF the thread draws. */
export interface TicketMail {
  /** The PDF's title. */
  title: string;
  steps: PdfStep[];
  parts: MailParts;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML, attributes included. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]!);
}

/** Header text on one line: a holder's or event's name never starts a new header. */
const oneLine = (text: string) => text.replace(/[\r\n]+/g, ' ');

/** The email of one ticket: To its email, Subject naming the event, the holder's link, the PDF attached. */
export function ticketMailParts(mail: TicketMailWords): MailParts {
  const subject = oneLine(`Your ticket for ${mail.eventName}`);
  const text = [
    `Hello ${mail.holderName},`,
    '',
    `here is your ticket for ${mail.eventName}.`,
    '',
    `Show it at the entrance from this page: ${mail.holderUrl}`,
    '',
    'The ticket is attached as a PDF too; print it or keep it on your phone.',
    '',
  ].join('\n');
  const url = escapeHtml(mail.holderUrl);
  const html = [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head><body>`,
    `<p>Hello ${escapeHtml(mail.holderName)},</p>`,
    `<p>here is your ticket for <strong>${escapeHtml(mail.eventName)}</strong>.</p>`,
    `<p>Show it at the entrance from this page: <a href="${url}">${url}</a></p>`,
    '<p>The ticket is attached as a PDF too; print it or keep it on your phone.</p>',
    '</body></html>',
  ].join('\n');
  return { to: mail.to, from: mail.from, subject, text, html, filename: 'ticket.pdf' };
}
