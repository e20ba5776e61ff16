import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';

// The decoder's WASM from node_modules, not from the CDN the package would otherwise fetch it from.
const wasm = readFileSync(createRequire(import.meta.url).resolve('zxing-wasm/reader/zxing_reader.wasm'));
prepareZXingModule({
  overrides: { wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer },
});

/** Dark squares on a white field of `side` × `side` units, as a picture `scale` pixels a unit. */
export interface Squares {
  side: number;
  squares: { x: number; y: number; w: number; h: number }[];
}

/** Draws the squares and reads the QR codes in the picture with ZXing (another library than the issuer's). */
export async function decodeSquares({ side, squares }: Squares, scale = 6): Promise<string[]> {
  const width = Math.ceil(side * scale);
  const data = new Uint8ClampedArray(width * width * 4).fill(255);
  for (const { x, y, w, h } of squares) {
    for (let py = Math.round(y * scale); py < Math.round((y + h) * scale); py++) {
      for (let px = Math.round(x * scale); px < Math.round((x + w) * scale); px++) {
        const i = (py * width + px) * 4;
        data[i] = data[i + 1] = data[i + 2] = 0;
      }
    }
  }
  const results = await readBarcodes({ data, width, height: width, colorSpace: 'srgb' } as ImageData, {
    formats: ['QRCode'],
    tryHarder: true,
  });
  return results.filter((r) => r.isValid).map((r) => r.text);
}

/** The squares of a QR code drawn as an SVG path of runs one unit high (`M x y h<w>v1h-<w>z` …). */
export function svgSquares(svg: string): Squares {
  const side = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)?.[1]);
  const path = /<path d="([^"]*)"/.exec(svg)?.[1] ?? '';
  const runs = [...path.matchAll(/M(\d+) (\d+)h(\d+)v1h-\3z/g)];
  assert.equal(runs.map((m) => m[0]).join(''), path, 'the path is made of runs only');
  const squares = runs.map((m) => ({ x: +m[1]!, y: +m[2]!, w: +m[3]!, h: 1 }));
  return { side, squares };
}
