/**
 * The camera: a video stream and a QR decoder reading it continuously. The browser's BarcodeDetector
 * where it reads QR codes, else the `barcode-detector` ponyfill (ZXing in WebAssembly), loaded only
 * when the camera starts and with its WASM file served by the issuer beside this page.
 */

/** What reads QR codes from a video frame. */
interface QrReader {
  detect(source: HTMLVideoElement): Promise<{ rawValue: string }[]>;
}

interface NativeDetector {
  new (options: { formats: string[] }): QrReader;
  getSupportedFormats(): Promise<string[]>;
}

/** The same code seen again within this long is one scan. */
export const SAME_CODE_MS = 3000;
/** How often a frame is read. */
const FRAME_INTERVAL_MS = 120;

let reader: Promise<QrReader> | null = null;

/** The browser's own detector when it reads QR codes, else the ponyfill. */
function qrReader(): Promise<QrReader> {
  reader ??= (async () => {
    const native = (globalThis as { BarcodeDetector?: NativeDetector }).BarcodeDetector;
    if (native) {
      try {
        if ((await native.getSupportedFormats()).includes('qr_code')) return new native({ formats: ['qr_code'] });
      } catch {
        // Present but unusable (no platform support): the ponyfill reads instead.
      }
    }
    const { BarcodeDetector, prepareZXingModule } = await import('barcode-detector/ponyfill');
    prepareZXingModule({
      overrides: {
        // The WASM file from the issuer, beside this page: never a CDN.
        locateFile: (path: string, prefix: string) =>
          path.endsWith('.wasm') ? new URL(path, document.baseURI).href : prefix + path,
      },
    });
    return new BarcodeDetector({ formats: ['qr_code'] });
  })();
  reader.catch(() => (reader = null));
  return reader;
}

/** A camera feeding decoded codes to `onCode`, each code once until it has been out of sight for 3 s. */
export class Camera {
  private stream: MediaStream | null = null;
  private timer: number | undefined;
  private lastCode: string | null = null;
  private lastSeenAt = 0;

  constructor(
    private readonly video: HTMLVideoElement,
    private readonly onCode: (code: string) => void,
  ) {}

  get running(): boolean {
    return this.stream !== null;
  }

  /** Opens the back camera and starts reading; rejects with a message a person can act on. */
  async start(): Promise<void> {
    if (this.stream) return;
    if (!navigator.mediaDevices?.getUserMedia) {
      throw new Error('This browser gives no camera here: open the scanner over HTTPS (or on localhost).');
    }
    const detector = qrReader();
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false });
    } catch (error) {
      const name = (error as DOMException).name;
      if (name === 'NotAllowedError') throw new Error('The camera is not allowed: allow it in the browser settings.');
      if (name === 'NotFoundError') throw new Error('This device has no camera.');
      throw new Error(`The camera could not start (${name}).`);
    }
    this.stream = stream;
    this.video.srcObject = stream;
    this.video.hidden = false;
    await this.video.play().catch(() => undefined);
    let qr: QrReader;
    try {
      qr = await detector;
    } catch {
      this.stop();
      throw new Error('The QR decoder could not be loaded: reload the page once online.');
    }
    const tick = async () => {
      if (this.stream !== stream) return;
      if (this.video.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA) {
        try {
          for (const { rawValue } of await qr.detect(this.video)) this.seen(rawValue);
        } catch {
          // A frame that could not be read: the next one will be.
        }
      }
      if (this.stream === stream) this.timer = window.setTimeout(tick, FRAME_INTERVAL_MS);
    };
    void tick();
  }

  stop(): void {
    window.clearTimeout(this.timer);
    for (const track of this.stream?.getTracks() ?? []) track.stop();
    this.stream = null;
    this.video.srcObject = null;
    this.video.hidden = true;
  }

  private seen(code: string): void {
    const now = performance.now();
    const again = code === this.lastCode && now - this.lastSeenAt < SAME_CODE_MS;
    this.lastCode = code;
    this.lastSeenAt = now;
    if (!again && code.trim() !== '') this.onCode(code);
  }
}
