import type { PdfPool, QrPath } from './pdf-pool.ts';

/**
 * The QR code as an inline SVG image named "Ticket QR code" (its `<title>`): its dark runs as one path
 * (a quiet zone of 4 modules around them), black on white, scaled by the page.
 */
export function qrSvg(qr: QrPath): string {
  const side = qr.size + 8;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${side} ${side}" role="img" aria-labelledby="qr-title" ` +
    `shape-rendering="crispEdges" class="qr"><title id="qr-title">Ticket QR code</title>` +
    `<rect width="${side}" height="${side}" fill="#fff"/><path d="${qr.path}" fill="#000"/></svg>`
  );
}

/**
 * How many QR codes are kept. A ticket token of about 430 characters makes a code of 81 × 81 modules
 * and an SVG of about 23 kB, so at most about 5 MB.
 */
const KEPT = 200;

/**
 * The holder page's QR codes. Making one costs several ms of CPU (the `qrcode` package's mask choice
 * and segment search), so it is made on the holders' PDF threads, never on the event loop, and refused
 * with 503 `UNAVAILABLE` when they are all busy, as a PDF is. A holder page is reloaded often (at the
 * doors, by the same phone) and a ticket's QR code changes only with its token, so the last `entries`
 * asked for are kept by the token they carry: a reload costs no thread, and requests for one token at
 * once share one job. A reissued token is a new key; the old one ages out.
 */
export class HolderQrCodes {
  private readonly kept = new Map<string, Promise<string>>();

  constructor(
    private readonly pool: PdfPool,
    private readonly entries = KEPT,
  ) {}

  /** The SVG image of the QR code of `token`; rejects with UNAVAILABLE when every thread is busy. */
  svg(token: string): Promise<string> {
    const kept = this.kept.get(token);
    if (kept !== undefined) {
      // The last asked for go to the end: the first in the map is the one to forget.
      this.kept.delete(token);
      this.kept.set(token, kept);
      return kept;
    }
    const made = this.pool.qr(token).then(qrSvg);
    this.kept.set(token, made);
    if (this.kept.size > this.entries) this.kept.delete(this.kept.keys().next().value!);
    // A refusal (every thread busy) or a failure is not kept: the next request asks the threads again.
    made.catch(() => {
      if (this.kept.get(token) === made) this.kept.delete(token);
    });
    return made;
  }
}
