/**
 * The ticket's PDF as the email attaches it: one page with the event, the holder and the ticket's QR
 * code (its current token). The holder page serves the same document at `/t/<holder_token>/ticket.pdf`.
 */
import PDFDocument from 'pdfkit';
import { qrCodes } from '../http/qr-codes.ts';
import type { EventRecord, TicketRecord } from '../store/store.ts';

export async function ticketPdf(ticket: TicketRecord, event: EventRecord): Promise<Buffer> {
  const QRCode = await qrCodes();
  const png = await QRCode.toBuffer(ticket.ticket_token, { errorCorrectionLevel: 'M', margin: 4, width: 300 });
  const doc = new PDFDocument({ size: 'A4', margin: 50, info: { Title: `Ticket: ${event.name}` } });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.fontSize(22).text(event.name);
  doc.moveDown(0.5).fontSize(14).text(ticket.holder_name);
  doc.fontSize(12).text(ticket.ticket_type);
  doc.moveDown().image(png, { width: 260 });
  doc.end();
  return done;
}
