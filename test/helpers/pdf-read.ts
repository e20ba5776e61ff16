import { inflateSync } from 'node:zlib';
import type { Squares } from './qr-decode.ts';

/**
 * A small reader of the PDFs pdfkit writes, to check them from outside: how many pages, the text as
 * each font's ToUnicode map reads it, and the filled rectangles (the QR code's modules).
 */
export interface ReadPdf {
  pages: number;
  /** The text, one line per text object. */
  text: string;
  /** The rectangles drawn, in units of the smallest one, with a quiet zone of 4 around them. */
  squares: Squares;
}

interface PdfObject {
  dict: string;
  stream: Buffer | null;
}

function objects(pdf: Buffer): Map<number, PdfObject> {
  const text = pdf.toString('latin1');
  const found = new Map<number, PdfObject>();
  for (const match of text.matchAll(/(\d+) 0 obj\s*([\s\S]*?)endobj/g)) {
    const body = match[2]!;
    const start = body.indexOf('stream');
    if (start < 0) {
      found.set(Number(match[1]), { dict: body, stream: null });
      continue;
    }
    const dict = body.slice(0, start);
    const dataStart = start + 'stream'.length + (body[start + 6] === '\r' ? 2 : 1);
    const raw = Buffer.from(body.slice(dataStart, body.lastIndexOf('endstream')), 'latin1');
    found.set(Number(match[1]), { dict, stream: dict.includes('/FlateDecode') ? inflateSync(raw) : raw });
  }
  return found;
}

/** A ToUnicode CMap: glyph code (hex) → text. */
function cmapOf(source: string): Map<string, string> {
  const map = new Map<string, string>();
  const utf16 = (hex: string) => Buffer.from(hex.replace(/\s/g, ''), 'hex').swap16().toString('utf16le');
  for (const block of source.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const m of block[1]!.matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>/g))
      map.set(m[1]!.toLowerCase(), utf16(m[2]!));
  }
  for (const block of source.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    for (const m of block[1]!.matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*(\[[^\]]*\]|<[0-9a-fA-F]+>)/g)) {
      const lo = parseInt(m[1]!, 16);
      const hi = parseInt(m[2]!, 16);
      const width = m[1]!.length;
      // A target may be several code units (a ligature: `<0066 0069>`).
      const targets = m[3]!.startsWith('[') ? [...m[3]!.matchAll(/<([0-9a-fA-F\s]+)>/g)].map((t) => t[1]!) : null;
      for (let code = lo; code <= hi; code++) {
        const key = code.toString(16).padStart(width, '0');
        if (targets) map.set(key, utf16(targets[code - lo]!));
        else map.set(key, String.fromCodePoint(parseInt(m[3]!.slice(1, -1), 16) + code - lo));
      }
    }
  }
  return map;
}

/** Reads the PDF: pages, text, rectangles. */
export function readPdf(pdf: Buffer): ReadPdf {
  const all = objects(pdf);
  const pages = [...all.values()].filter((o) => /\/Type\s*\/Page(?!s)/.test(o.dict)).length;
  // Each font resource's name (F1…) → its ToUnicode map (none for a standard font: WinAnsi bytes).
  const fontMaps = new Map<string, Map<string, string> | null>();
  for (const o of all.values()) {
    for (const m of o.dict.matchAll(/\/(F\d+)\s+(\d+) 0 R/g)) {
      const toUnicode = /\/ToUnicode\s+(\d+) 0 R/.exec(all.get(Number(m[2]))?.dict ?? '')?.[1];
      const cmap = toUnicode === undefined ? null : all.get(Number(toUnicode))?.stream;
      fontMaps.set(m[1]!, cmap ? cmapOf(cmap.toString('latin1')) : null);
    }
  }
  const lines: string[] = [];
  const rects: { x: number; y: number; w: number; h: number }[] = [];
  for (const o of all.values()) {
    if (o.stream === null || /\/(Subtype|Type|Length1)/.test(o.dict) || o.dict.includes('/ToUnicode')) continue;
    const content = o.stream.toString('latin1');
    if (!/\bTf\b|\bre\b/.test(content)) continue;
    let font: Map<string, string> | null = null;
    for (const op of content.matchAll(
      /\/(F\d+)\s+[\d.]+\s+Tf|(\[[^\]]*\]|<[0-9a-fA-F]*>)\s*T[Jj]|([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+) re/g,
    )) {
      if (op[1]) font = fontMaps.get(op[1]) ?? null;
      else if (op[2]) {
        const hexes = [...op[2].matchAll(/<([0-9a-fA-F]*)>/g)].map((h) => h[1]!);
        const decode = (hex: string) =>
          font === null
            ? Buffer.from(hex, 'hex').toString('latin1')
            : (hex.match(/.{4}/g) ?? []).map((code) => font!.get(code.toLowerCase()) ?? '\uFFFD').join('');
        lines.push(hexes.map(decode).join(''));
      } else rects.push({ x: +op[3]!, y: +op[4]!, w: +op[5]!, h: +op[6]! });
    }
  }
  return { pages, text: lines.join('\n'), squares: unitSquares(rects) };
}

/** Rectangles in units of the smallest height, moved to leave a quiet zone of 4 units. */
function unitSquares(rects: { x: number; y: number; w: number; h: number }[]): Squares {
  if (rects.length === 0) return { side: 0, squares: [] };
  const unit = Math.min(...rects.map((r) => Math.abs(r.h)));
  const minX = Math.min(...rects.map((r) => r.x));
  const minY = Math.min(...rects.map((r) => Math.min(r.y, r.y + r.h)));
  const maxX = Math.max(...rects.map((r) => r.x + r.w));
  const squares = rects.map((r) => ({
    x: (r.x - minX) / unit + 4,
    y: (Math.min(r.y, r.y + r.h) - minY) / unit + 4,
    w: r.w / unit,
    h: Math.abs(r.h) / unit,
  }));
  return { side: Math.round((maxX - minX) / unit) + 8, squares };
}
