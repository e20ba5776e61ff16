import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { prepareZXingModule, readBarcodes, type ReadResult } from 'zxing-wasm/reader';
import { browserSkipReason, launchBrowser } from '../console/harness.ts';
import { BLACK, WHITE, fakeCameraArgs, writeBlankVideo, writeQrVideo, writeVideo } from '../helpers/fake-camera.ts';

// The decoder's WASM from node_modules, not from the CDN the package would otherwise fetch it from.
const wasm = readFileSync(createRequire(import.meta.url).resolve('zxing-wasm/reader/zxing_reader.wasm'));
prepareZXingModule({
  overrides: { wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer },
});

const dir = mkdtempSync(join(tmpdir(), 'fake-camera-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function base64url(bytes: Buffer | string): string {
  return Buffer.from(bytes).toString('base64url');
}

/** A signed ticket's shape and size: header.payload.signature in base64url, about 400 characters. */
const LONG_TOKEN = [
  base64url(JSON.stringify({ alg: 'EdDSA', kid: 'k_01JD3QW7Z5N9G2H8X4C6V1B0MR', typ: 'ticket+jwt' })),
  base64url(
    JSON.stringify({
      v: 1,
      eid: 'evt_01JD3QW7Z5N9G2H8X4C6V1B0MR',
      tid: 'tkt_01JD3QX0A7K2M4P6R8T0V2X4Z6',
      tier: 'Standing',
      seat: null,
      name: 'Ada Lovelace',
      iat: 1_764_000_000,
      exp: 1_764_086_400,
    }),
  ),
  base64url(createHash('sha512').update('signature').digest()),
].join('.');

interface Y4m {
  header: string;
  width: number;
  height: number;
  /** Each frame's luma plane. */
  frames: Buffer[];
}

/** Reads a .y4m file back, checking its framing: `FRAME\n`, the luma plane, then 4:2:0 chroma of 128. */
function readY4m(path: string): Y4m {
  const file = readFileSync(path);
  const end = file.indexOf('\n');
  const header = file.subarray(0, end).toString('latin1');
  const size = /^YUV4MPEG2 W(\d+) H(\d+) /.exec(header);
  assert.ok(size, header);
  const width = Number(size[1]);
  const height = Number(size[2]);
  const frames: Buffer[] = [];
  let at = end + 1;
  while (at < file.length) {
    assert.equal(file.subarray(at, at + 6).toString('latin1'), 'FRAME\n', `frame ${frames.length} at byte ${at}`);
    at += 6;
    frames.push(file.subarray(at, at + width * height));
    at += width * height;
    const chroma = file.subarray(at, at + (width * height) / 2);
    assert.equal(chroma.length, (width * height) / 2, 'a whole chroma plane');
    assert.ok(
      chroma.every((value) => value === 128),
      'neutral chroma',
    );
    at += chroma.length;
  }
  return { header, width, height, frames };
}

/** Decodes a grey picture (one byte a pixel) as the scanner's WASM decoder would. */
function decodeGrey(grey: Uint8Array, width: number, height: number): Promise<ReadResult[]> {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    data[4 * i] = data[4 * i + 1] = data[4 * i + 2] = grey[i]!;
    data[4 * i + 3] = 255;
  }
  return decodeRgba(data, width, height);
}

function decodeRgba(data: Uint8ClampedArray, width: number, height: number): Promise<ReadResult[]> {
  return readBarcodes({ data, width, height, colorSpace: 'srgb' } as ImageData, {
    formats: ['QRCode'],
    tryHarder: true,
  });
}

describe('the fake camera’s video file', () => {
  it('is a 640x480 YUV4MPEG2 file whose frames decode to a short text', async () => {
    const path = join(dir, 'short.y4m');
    writeQrVideo(path, 'TKT-42', { frames: 3 });
    const video = readY4m(path);
    assert.equal(video.header, 'YUV4MPEG2 W640 H480 F5:1 Ip A1:1 C420jpeg');
    assert.equal(video.frames.length, 3);
    for (const luma of video.frames) {
      const results = await decodeGrey(luma, video.width, video.height);
      assert.deepEqual(
        results.map((result) => [result.format, result.text, result.isMirrored]),
        [['QRCode', 'TKT-42', false]],
      );
    }
  });

  it('decodes to a long ticket token, drawn large with a white quiet zone of 4 modules', async () => {
    assert.ok(LONG_TOKEN.length >= 380 && LONG_TOKEN.length <= 450, `${LONG_TOKEN.length} characters`);
    const path = join(dir, 'long.y4m');
    writeQrVideo(path, LONG_TOKEN, { frames: 1 });
    const { width, height, frames } = readY4m(path);
    const luma = frames[0]!;
    const [result, ...others] = await decodeGrey(luma, width, height);
    assert.equal(others.length, 0);
    assert.equal(result?.text, LONG_TOKEN);

    // Only two levels, and the code's bounding box: large, centred, with a margin of white.
    assert.ok(luma.every((value) => value === BLACK || value === WHITE));
    let [top, left, bottom, right] = [height, width, -1, -1];
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++)
        if (luma[y * width + x] === BLACK) {
          [top, left] = [Math.min(top, y), Math.min(left, x)];
          [bottom, right] = [Math.max(bottom, y), Math.max(right, x)];
        }
    const side = bottom - top + 1;
    assert.equal(right - left + 1, side, 'square');
    assert.ok(side >= 0.75 * height, `the code is ${side} px high in a ${height} px frame`);
    const version = result!.version ? Number(result!.version) : 0;
    const modules = 17 + 4 * version;
    assert.ok(version >= 10, `a long token needs a large symbol (version ${version})`);
    const scale = side / modules;
    assert.ok(Number.isInteger(scale), `whole pixels per module (${side} px, ${modules} modules)`);
    for (const margin of [top, left, height - 1 - bottom, width - 1 - right])
      assert.ok(margin >= 4 * scale, `a margin of ${margin} px is at least 4 modules of ${scale} px`);
  });

  it('shows a white wall for the leading blank frames, then the code', async () => {
    const path = join(dir, 'blank-first.y4m');
    writeQrVideo(path, 'after the wall', { blankFrames: 4, frames: 2, fps: 10 });
    const video = readY4m(path);
    assert.equal(video.header, 'YUV4MPEG2 W640 H480 F10:1 Ip A1:1 C420jpeg');
    assert.equal(video.frames.length, 6);
    for (const luma of video.frames.slice(0, 4)) assert.ok(luma.every((value) => value === WHITE));
    const texts = await Promise.all(
      video.frames.map(async (luma) =>
        (await decodeGrey(luma, video.width, video.height)).map((result) => result.text).join(),
      ),
    );
    assert.deepEqual(texts, ['', '', '', '', 'after the wall', 'after the wall']);
  });

  it('writes a camera that sees nothing, in another size', async () => {
    const path = join(dir, 'blank.y4m');
    writeBlankVideo(path, { width: 320, height: 240, frames: 2 });
    const video = readY4m(path);
    assert.equal(video.header, 'YUV4MPEG2 W320 H240 F5:1 Ip A1:1 C420jpeg');
    assert.equal(video.frames.length, 2);
    for (const luma of video.frames) {
      assert.ok(luma.every((value) => value === WHITE));
      assert.deepEqual(await decodeGrey(luma, video.width, video.height), []);
    }
  });

  it('turns shots of seconds into frames at the frame rate', () => {
    const path = join(dir, 'shots.y4m');
    writeVideo(
      path,
      [
        { text: 'a', seconds: 1 },
        { text: null, seconds: 0.5 },
      ],
      { fps: 4 },
    );
    const { frames } = readY4m(path);
    assert.deepEqual(
      frames.map((luma) => luma.includes(BLACK)),
      [true, true, true, true, false, false],
    );
  });

  it('refuses a code that does not fit and an odd frame size', () => {
    assert.throws(() => writeQrVideo(join(dir, 'tiny.y4m'), LONG_TOKEN, { width: 100, height: 100 }), /does not fit/);
    assert.throws(() => writeBlankVideo(join(dir, 'odd.y4m'), { width: 641 }), /even size/);
  });

  it('gives Chromium the three flags that make the file its camera', () => {
    assert.deepEqual(fakeCameraArgs('/tmp/x.y4m'), [
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      '--use-file-for-fake-video-capture=/tmp/x.y4m',
    ]);
  });
});

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>Camera</title>
<video autoplay muted playsinline></video>`;

describe('Chromium with the video file as its camera', { skip: browserSkipReason() ?? false }, () => {
  it('plays the file unturned, unmirrored and unscaled: the page’s frame decodes to the token', async () => {
    const path = join(dir, 'chromium.y4m');
    writeQrVideo(path, LONG_TOKEN, { frames: 10 });
    const written = readY4m(path).frames[0]!;

    const server = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(PAGE);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const browser = await launchBrowser(fakeCameraArgs(path));
    try {
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      const seen = await page.evaluate(async () => {
        const stream = await navigator.mediaDevices.getUserMedia({ video: true });
        const video = document.querySelector('video')!;
        video.srcObject = stream;
        await video.play();
        // A frame actually presented, not the poster before the first one.
        await new Promise((resolve) => video.requestVideoFrameCallback(resolve));
        const canvas = document.createElement('canvas');
        canvas.width = video.videoWidth;
        canvas.height = video.videoHeight;
        const context = canvas.getContext('2d')!;
        context.drawImage(video, 0, 0);
        const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
        let binary = '';
        for (let i = 0; i < data.length; i += 0x8000) binary += String.fromCharCode(...data.subarray(i, i + 0x8000));
        stream.getTracks().forEach((track) => track.stop());
        return { width: canvas.width, height: canvas.height, rgba: btoa(binary) };
      });
      assert.deepEqual([seen.width, seen.height], [640, 480], 'the camera’s size is the file’s');
      const rgba = new Uint8ClampedArray(Buffer.from(seen.rgba, 'base64'));
      assert.equal(rgba.length, 640 * 480 * 4);

      // Pixel for pixel the file's frame (dark where it is dark), so neither turned, mirrored nor scaled.
      let differing = 0;
      for (let i = 0; i < 640 * 480; i++) if (rgba[4 * i]! < 128 !== written[i]! < 128) differing++;
      assert.ok(differing <= 640 * 480 * 0.001, `${differing} pixels differ from the file`);

      const results = await decodeRgba(rgba, seen.width, seen.height);
      assert.deepEqual(
        results.map((result) => [result.text, result.isMirrored]),
        [[LONG_TOKEN, false]],
      );
    } finally {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
