/**
 * Lines of a stream as they arrive. `next()` hands over every complete line already received (so
 * an offline scan can store them with one write) and waits only when there is none.
 */
export class LineReader {
  private pending = '';
  private lines: string[] = [];
  private ended = false;
  private failure: Error | null = null;
  private wake: (() => void) | null = null;

  constructor(private readonly stream: NodeJS.ReadStream) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (this.pending + chunk).split('\n');
      this.pending = parts.pop() ?? '';
      this.lines.push(...parts);
      this.notify();
    });
    stream.on('end', () => {
      if (this.pending !== '') this.lines.push(this.pending);
      this.pending = '';
      this.ended = true;
      this.notify();
    });
    stream.on('error', (error: Error) => {
      this.failure = error;
      this.notify();
    });
  }

  /** The lines received so far (at least one), or null at the end of the input. */
  async next(): Promise<string[] | null> {
    while (this.lines.length === 0 && !this.ended && this.failure === null) {
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    if (this.failure) throw this.failure;
    if (this.lines.length === 0) return null;
    const lines = this.lines;
    this.lines = [];
    return lines.map((line) => line.replace(/\r$/, ''));
  }

  /** Stops reading (the process may then exit before the input ends). */
  close(): void {
    this.stream.destroy();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
