import { createRequire } from 'node:module';
import { MARGIN, PAGE_WIDTH } from './pdf-layout.ts';

/**
 * The code of a PDF thread (plain JavaScript, run with `eval`, so it works from src/ and from the build
 * alike). One job at a time: the ticket's page from its steps (the QR code's matrix included, so no QR
 * is computed on the event loop) and, for an email, the whole MIME message with the PDF attached
 * (nodemailer's own composer, as its transport would build it; the transport then sends it as is).
 *
 * What does not change from one ticket to the next is made once per thread: each font file is read and
 * parsed once (its tables cost more than the rest of the page) and the layout of each word (fontkit's
 * shaping) is kept per font across documents, so an event's repeated lines are shaped once. pdfkit
 * keeps that layout per document only; a document's words are the same glyphs whatever the document.
 */
export const PDF_THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const PDFDocument = require(workerData.pdfkit);
const QRCode = require(workerData.qrcode);
let MailComposer = null;
const fontkit = createRequire(workerData.pdfkit)('fontkit');
const parsed = new Map();
const fontOf = (name) => {
  if (!name.startsWith('/')) return name;
  if (!parsed.has(name)) parsed.set(name, fontkit.create(readFileSync(name)));
  return parsed.get(name);
};
// Word layouts kept per font, bounded: holder names and tokens are new words on every ticket.
const LAYOUTS_KEPT = 5000;
const layouts = new Map();
const shareLayouts = (doc, name) => {
  const font = doc._font;
  if (!font || !font.layoutCache || font.layoutCache === layouts.get(name)?.words) return;
  // Once per document and font (later calls find the cache in place): counted then, emptied when full.
  let kept = layouts.get(name);
  if (!kept || Object.keys(kept.words).length > LAYOUTS_KEPT) layouts.set(name, (kept = { words: Object.create(null) }));
  font.layoutCache = kept.words;
};
// The QR code as dark rectangles, one per run of dark modules in a row, with a quiet zone of 4
// modules, scaled to side points (error correction M, as the admin API's QR images).
const qrSquares = (text, side) => {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const size = modules.size;
  const unit = side / (size + 8);
  const squares = [];
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      if (!modules.get(y, x)) continue;
      let end = x;
      while (end + 1 < size && modules.get(y, end + 1)) end++;
      squares.push([(x + 4) * unit, (y + 4) * unit, (end - x + 1) * unit, unit]);
      x = end;
    }
  }
  return squares;
};
const send = (bytes, envelope) => {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  const value = { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), envelope };
  parentPort.postMessage({ value }, whole ? [bytes.buffer] : []);
};
const failed = (error) => parentPort.postMessage({ error: String((error && error.message) || error) });
const mailWith = (mail, pdf) => {
  MailComposer = MailComposer || require(workerData.mailComposer);
  const { filename, ...fields } = mail;
  const message = new MailComposer({
    ...fields,
    attachments: [{ filename, content: pdf, contentType: 'application/pdf' }],
  }).compile();
  const envelope = message.getEnvelope();
  message.build((error, raw) => (error ? failed(error) : send(raw, envelope)));
};
parentPort.on('message', ({ title, steps, mail }) => {
  try {
    // No default font: pdfkit would parse Helvetica's metrics for every document, used or not.
    const doc = new PDFDocument({ size: 'A4', margin: ${MARGIN}, font: null, info: { Title: title, Creator: 'ticket-issuer' } });
    const chunks = [];
    doc.on('data', (chunk) => chunks.push(chunk));
    doc.on('end', () => {
      try {
        const pdf = Buffer.concat(chunks);
        if (mail) mailWith(mail, pdf);
        else send(pdf);
      } catch (error) {
        failed(error);
      }
    });
    const width = ${PAGE_WIDTH} - 2 * ${MARGIN};
    for (const step of steps) {
      if (step.qr !== undefined) {
        const top = doc.y + 4;
        for (const [x, y, w, h] of qrSquares(step.qr, step.side)) doc.rect(${MARGIN} + x, top + y, w, h);
        doc.fill('#000000');
        doc.x = ${MARGIN};
        doc.y = top + step.side + 4;
      } else {
        doc.font(fontOf(step.font), step.font);
        shareLayouts(doc, step.font);
        doc.fontSize(step.size).fillColor('#000000').text(step.text, ${MARGIN}, doc.y, { width });
        doc.y += step.gap;
      }
    }
    doc.end();
  } catch (error) {
    failed(error);
  }
});
`;

/** Where a thread finds its modules (resolved here, so the thread loads the issuer's own copies). */
export function pdfThreadModules(): { pdfkit: string; qrcode: string; mailComposer: string } {
  const require = createRequire(import.meta.url);
  return {
    pdfkit: require.resolve('pdfkit'),
    qrcode: require.resolve('qrcode'),
    mailComposer: require.resolve('nodemailer/lib/mail-composer'),
  };
}
