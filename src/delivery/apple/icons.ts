/**
 * The pass's icon (icon.png 29×29, icon@2x.png 58×58, icon@3x.png 87×87): a plain ticket mark drawn
 * once, at first use, as PNG. Drawn rather than shipped, so that no binary file needs keeping in step
 * with the code; Wallet shows it on the lock screen and in notifications.
 */
import { crc32, deflateSync } from 'node:zlib';

const INK = [0x1f, 0x3a, 0x5f];
const PAPER = [0xff, 0xff, 0xff];

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** An RGB PNG of `size`×`size` whose pixel colours `colourAt` gives. */
function png(size: number, colourAt: (x: number, y: number) => number[]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, deflate, no filter method beyond 0, no interlace
  const rows: number[] = [];
  for (let y = 0; y < size; y += 1) {
    rows.push(0);
    for (let x = 0; x < size; x += 1) rows.push(...colourAt(x, y));
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.from(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A ticket: an ink card with a notch on each side and a paper stub line. */
function ticketMark(size: number): Buffer {
  const margin = size / 8;
  const notch = size / 7;
  return png(size, (x, y) => {
    const cx = x + 0.5;
    const cy = y + 0.5;
    const inCard = cx > margin && cx < size - margin && cy > margin * 1.6 && cy < size - margin * 1.6;
    const inNotch =
      Math.hypot(cx - margin, cy - size / 2) < notch || Math.hypot(cx - (size - margin), cy - size / 2) < notch;
    const stub = Math.abs(cx - size * 0.66) < size / 40 && Math.floor(cy / (size / 12)) % 2 === 0;
    return inCard && !inNotch && !stub ? INK : PAPER;
  });
}

let drawn: Record<string, Buffer> | null = null;

/** The icon files of every pass, by their name in the bundle. */
export function passIcons(): Record<string, Buffer> {
  drawn ??= { 'icon.png': ticketMark(29), 'icon@2x.png': ticketMark(58), 'icon@3x.png': ticketMark(87) };
  return drawn;
}
