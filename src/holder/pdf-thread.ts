import { createRequire } from 'node:module';
import { MARGIN, PAGE_WIDTH } from './pdf-layout.ts';

/**
 * What every PDF thread knows (plain JavaScript, run with `eval`, so it works from src/ and from the
 * build alike): drawing a ticket's page from its steps (the QR code's matrix included, so no QR is
 * computed on the event loop), and a QR code's dark runs. The holders' threads answer PDFs and the
 * holder page's QR codes (`HOLDER_THREAD_SOURCE`); the mail's thread draws the PDF of each email and
 * sends it (`src/delivery/mail-thread.ts`).
 *
 * What does not change from one ticket to the next is made once per thread: each font file is read and
 * parsed once (its tables cost more than the rest of the page) and the layout of each word (fontkit's
 * shaping) is kept per font across documents, so an event's repeated lines are shaped once. pdfkit
 * keeps that layout per document only; a document's words are the same glyphs whatever the document.
 */
export const PDF_DRAW_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const PDFDocument = require(workerData.pdfkit);
const QRCode = require(workerData.qrcode);
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
// The QR code of a text (error correction M, as the admin API's QR images): its side in modules and
// its dark modules as runs [x, y, length], one per run of dark modules in a row.
const qrRuns = (text) => {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const size = modules.size;
  const runs = [];
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      if (!modules.get(y, x)) continue;
      let end = x;
      while (end + 1 < size && modules.get(y, end + 1)) end++;
      runs.push([x, y, end - x + 1]);
      x = end;
    }
  }
  return { size, runs };
};
const errorText = (error) => String((error && error.message) || error);
// The ticket's page from its steps; calls back with (error) or (null, the PDF's bytes).
const drawPdf = (title, steps, callback) => {
  try {
    // No default font: pdfkit would parse Helvetica's metrics for every document, used or not.
    const doc = new PDFDocument({ size: 'A4', margin: ${MARGIN}, font: null, info: { Title: title, Creator: 'ticket-issuer' } });
    const chunks = [];
    doc.on('data', (chunk) => chunks.push(chunk));
    doc.on('end', () => callback(null, Buffer.concat(chunks)));
    const width = ${PAGE_WIDTH} - 2 * ${MARGIN};
    for (const step of steps) {
      if (step.qr !== undefined) {
        // A quiet zone of 4 modules, the whole code scaled to side points.
        const top = doc.y + 4;
        const { size, runs } = qrRuns(step.qr);
        const unit = step.side / (size + 8);
        for (const [x, y, w] of runs) doc.rect(${MARGIN} + (x + 4) * unit, top + (y + 4) * unit, w * unit, unit);
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
    callback(error);
  }
};
// Bytes as a message's value, moved rather than copied when they fill their buffer.
const bytesMessage = (bytes) => {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  const value = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return [value, whole ? [bytes.buffer] : []];
};
`;

/**
 * A holders' thread: one job at a time, a PDF from its steps (`{ title, steps }`, answered as bytes) or
 * the holder page's QR code of a text (`{ qr }`, answered as `{ size, path }`: an SVG path of the dark
 * runs, a quiet zone of 4 modules around them).
 */
export const HOLDER_THREAD_SOURCE = `${PDF_DRAW_SOURCE}
const failed = (error) => parentPort.postMessage({ error: errorText(error) });
parentPort.on('message', (job) => {
  if (job.qr !== undefined) {
    try {
      const { size, runs } = qrRuns(job.qr);
      let path = '';
      for (const [x, y, w] of runs) path += 'M' + (x + 4) + ' ' + (y + 4) + 'h' + w + 'v1h-' + w + 'z';
      parentPort.postMessage({ value: { size, path } });
    } catch (error) {
      failed(error);
    }
    return;
  }
  drawPdf(job.title, job.steps, (error, pdf) => {
    if (error) return failed(error);
    const [value, transfer] = bytesMessage(pdf);
    parentPort.postMessage({ value }, transfer);
  });
});
`;

/** Where a PDF thread finds its modules (resolved here, not loaded, so the thread loads the issuer's own copies). */
export function pdfThreadModules(): { pdfkit: string; qrcode: string } {
  const require = createRequire(import.meta.url);
  return { pdfkit: require.resolve('pdfkit'), qrcode: require.resolve('qrcode') };
}
