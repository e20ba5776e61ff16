/**
 * A fake camera for Chromium: a YUV4MPEG2 (.y4m) video that Chromium plays as the device's camera
 * with `--use-file-for-fake-video-capture`, made from QR codes drawn by the `qrcode` package. The
 * file loops: a code shown, then a blank wall, then the code again, as a ticket held up twice.
 *
 * Chromium reads the luma plane as limited-range BT.601: 16 is black and 235 white on its canvas
 * (0 and 255 clip to the same), so those are the levels drawn here.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import QRCode from 'qrcode';

/** The luma of a dark module and of the white around it. */
export const BLACK = 16;
export const WHITE = 235;

/** Modules of white around the code, as the QR specification asks. */
export const QUIET_ZONE = 4;

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

/** A run of identical frames: `text` as a QR code (or a white wall) `frames` times. */
interface Run {
  text: string | null;
  frames: number;
}

/** The luma plane of one frame: `text` as a QR code centred on white, or all white. */
function frame(text: string | null, width: number, height: number): Buffer {
  const luma = Buffer.alloc(width * height, WHITE);
  if (text === null) return luma;
  const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const modules = qr.modules.size;
  // As large as the frame's short side allows with the quiet zone inside the frame.
  const scale = Math.floor(Math.min(width, height) / (modules + 2 * QUIET_ZONE));
  if (scale < 2) throw new Error(`a QR code of ${modules} modules does not fit ${width}x${height}`);
  const left = Math.floor((width - modules * scale) / 2);
  const top = Math.floor((height - modules * scale) / 2);
  for (let row = 0; row < modules; row++) {
    for (let col = 0; col < modules; col++) {
      if (!qr.modules.get(row, col)) continue;
      for (let y = 0; y < scale; y++)
        luma.fill(
          BLACK,
          (top + row * scale + y) * width + left + col * scale,
          (top + row * scale + y) * width + left + (col + 1) * scale,
        );
    }
  }
  return luma;
}

function writeRuns(path: string, runs: readonly Run[], options: VideoOptions): void {
  const width = options.width ?? 640;
  const height = options.height ?? 480;
  const fps = options.fps ?? 5;
  if (width % 2 !== 0 || height % 2 !== 0) throw new Error(`4:2:0 needs an even size, not ${width}x${height}`);
  // 4:2:0: a chroma plane of a quarter of the pixels each, neutral grey.
  const chroma = Buffer.alloc((width / 2) * (height / 2) * 2, 128);
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, `YUV4MPEG2 W${width} H${height} F${fps}:1 Ip A1:1 C420jpeg\n`);
    for (const run of runs) {
      if (run.frames === 0) continue;
      const luma = frame(run.text, width, height);
      for (let i = 0; i < run.frames; i++) {
        writeSync(fd, 'FRAME\n');
        writeSync(fd, luma);
        writeSync(fd, chroma);
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** Writes the shots, in order, as a .y4m file Chromium can use as its camera. */
export function writeVideo(path: string, shots: readonly Shot[], options: VideoOptions = {}): void {
  const fps = options.fps ?? 5;
  writeRuns(
    path,
    shots.map((shot) => ({ text: shot.text, frames: Math.max(1, Math.round(shot.seconds * fps)) })),
    options,
  );
}

export interface QrVideoOptions extends VideoOptions {
  /** Frames showing the code (default 10). */
  frames?: number;
  /** White frames before the code (default none). */
  blankFrames?: number;
}

/** Writes `text` as a QR code held still in front of the camera, after `blankFrames` of white wall. */
export function writeQrVideo(path: string, text: string, options: QrVideoOptions = {}): void {
  const frames = options.frames ?? 10;
  if (frames < 1) throw new Error('a QR video needs at least one frame of the code');
  writeRuns(
    path,
    [
      { text: null, frames: options.blankFrames ?? 0 },
      { text, frames },
    ],
    options,
  );
}

/** Writes a camera that sees only a white wall. */
export function writeBlankVideo(path: string, options: VideoOptions & { frames?: number } = {}): void {
  writeRuns(path, [{ text: null, frames: Math.max(1, options.frames ?? 10) }], options);
}

/** The Chromium flags that make `path` the camera, and grant it without asking. */
export function fakeCameraArgs(path: string): string[] {
  return [
    '--use-fake-device-for-media-stream',
    '--use-fake-ui-for-media-stream',
    `--use-file-for-fake-video-capture=${path}`,
  ];
}
