/**
 * How fast mail goes while the gates keep the instance busy. Each email still costs the event loop a
 * little (reading the ticket, handing the job to the mail's thread, the outbox's claim and record), and
 * its thread far more: 30 to 40 ms of CPU an email for its QR code, PDF and MIME message, which on a
 * machine of two cores is taken from what the check-ins, their fsyncs and the checkpointer share. So
 * while scanners' requests keep the instance busy the emails are spaced: at most one composed every
 * `BUSY_INTERVAL_MS` (250 ms: about a seventh of a core, and an event's mail still moving, 14,400 an hour);
 * at a quiet moment they go as fast as the thread and the server allow.
 */
import type { MailSource } from './mail-worker.ts';

/** The least time between two emails composed while the instance is busy. */
export const BUSY_INTERVAL_MS = 250;

export interface PaceOptions {
  /** Whether scanners' requests keep the instance busy now. */
  busy: () => boolean;
  intervalMs?: number;
  now?: () => number;
}

/** `compose`, each call waiting its turn while the instance is busy (never while it is not). */
export function pacedWhileBusy(compose: MailSource, options: PaceOptions): MailSource {
  const interval = options.intervalMs ?? BUSY_INTERVAL_MS;
  const now = options.now ?? (() => performance.now());
  let last = -Infinity;
  let turn: Promise<unknown> = Promise.resolve();
  return (claimed) => {
    const started = turn.then(async () => {
      const wait = last + interval - now();
      if (options.busy() && wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      last = now();
    });
    turn = started;
    return started.then(() => compose(claimed));
  };
}
