import { qrCodes } from '../http/qr-codes.ts';

/** A QR code's dark modules: `size` × `size`, row by row. */
export interface QrMatrix {
  size: number;
  dark: (x: number, y: number) => boolean;
}

/** The QR code of a text (error correction M, as the admin API's QR images). */
export async function qrMatrix(text: string): Promise<QrMatrix> {
  const QRCode = await qrCodes();
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  return { size: modules.size, dark: (x, y) => modules.get(y, x) === 1 };
}

/**
 * The QR code as an inline SVG image named "Ticket QR code" (its `<title>`), with a quiet zone of 4
 * modules: one path of unit squares, black on white, scaled by the page.
 */
export function qrSvg(qr: QrMatrix): string {
  const margin = 4;
  const side = qr.size + 2 * margin;
  let path = '';
  for (let y = 0; y < qr.size; y++) {
    for (let x = 0; x < qr.size; x++) if (qr.dark(x, y)) path += `M${x + margin} ${y + margin}h1v1h-1z`;
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${side} ${side}" role="img" aria-labelledby="qr-title" ` +
    `shape-rendering="crispEdges" class="qr"><title id="qr-title">Ticket QR code</title>` +
    `<rect width="${side}" height="${side}" fill="#fff"/><path d="${path}" fill="#000"/></svg>`
  );
}
