import type QRCode from 'qrcode';

/**
 * The QR code library, loaded at the first QR code asked for rather than at start-up (with the PNG
 * encoder it brings, it is memory an issuer that draws no QR code never needs).
 */
export async function qrCodes(): Promise<typeof QRCode> {
  return (await import('qrcode')).default;
}
