/** One ticket's email: who it goes to, what it says (text and HTML), and its PDF. */

/** What a ticket's email is made of, read when it is sent. */
export interface TicketMail {
  to: string;
  from: string;
  eventName: string;
  holderName: string;
  holderUrl: string;
  pdf: Buffer;
}

/** A message as nodemailer takes it. */
export interface MailMessage {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
  attachments: { filename: string; content: Buffer; contentType: string }[];
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML, attributes included. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]!);
}

/** Header text on one line: a holder's or event's name never starts a new header. */
const oneLine = (text: string) => text.replace(/[\r\n]+/g, ' ');

/** The email of one ticket: To its email, Subject naming the event, the holder's link, the PDF attached. */
export function ticketMessage(mail: TicketMail): MailMessage {
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
  return {
    to: mail.to,
    from: mail.from,
    subject,
    text,
    html,
    attachments: [{ filename: 'ticket.pdf', content: mail.pdf, contentType: 'application/pdf' }],
  };
}
