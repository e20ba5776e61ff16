/**
 * A fake camera for Chromium: a YUV4MPEG2 (.y4m) video that Chromium plays as the device's camera
 * with `--use-file-for-fake-video-capture`, made from QR codes drawn by the `qrcode` package. The
 * file loops: a code shown, then a blank wall, then the code again, as a ticket held up twice.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import QRCode from 'qrcode';

export interface VideoOptions {
  width?: number;
  height?: number;
  fps?: number;
}

/** One part of the video: `text` as a QR code (or nothing, a white wall) for `seconds`. */
export interface Shot {
  text: string | null;
  seconds: number;
}

/** The luma plane of one frame: `text` as a QR code centred on white, or all white. */
function frame(text: string | null, width: number, height: number): Buffer {
  const luma = Buffer.alloc(width * height, 235);
  if (text === null) return luma;
  const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const modules = qr.modules.size;
  const quiet = 4;
  const scale = Math.floor(Math.min(width, height) / (modules + 2 * quiet));
  if (scale < 2) throw new Error(`a QR code of ${modules} modules does not fit ${width}x${height}`);
  const left = Math.floor((width - modules * scale) / 2);
  const top = Math.floor((height - modules * scale) / 2);
  for (let row = 0; row < modules; row++) {
    for (let col = 0; col < modules; col++) {
      if (!qr.modules.get(row, col)) continue;
      for (let y = 0; y < scale; y++)
        luma.fill(
          16,
          (top + row * scale + y) * width + left + col * scale,
          (top + row * scale + y) * width + left + (col + 1) * scale,
        );
    }
  }
  return luma;
}

/** Writes the shots, in order, as a .y4m file Chromium can use as its camera. */
export function writeVideo(path: string, shots: readonly Shot[], options: VideoOptions = {}): void {
  const width = options.width ?? 640;
  const height = options.height ?? 480;
  const fps = options.fps ?? 5;
  // 4:2:0: a chroma plane of a quarter of the pixels each, neutral grey.
  const chroma = Buffer.alloc((width / 2) * (height / 2) * 2, 128);
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, `YUV4MPEG2 W${width} H${height} F${fps}:1 Ip A1:1 C420jpeg\n`);
    for (const shot of shots) {
      const luma = frame(shot.text, width, height);
      for (let i = 0; i < Math.max(1, Math.round(shot.seconds * fps)); i++) {
        writeSync(fd, 'FRAME\n');
        writeSync(fd, luma);
        writeSync(fd, chroma);
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** The Chromium flags that make `path` the camera, and grant it without asking. */
export function fakeCameraArgs(path: string): string[] {
  return [
    '--use-fake-device-for-media-stream',
    '--use-fake-ui-for-media-stream',
    `--use-file-for-fake-video-capture=${path}`,
  ];
}
