/**
 * Sending mail through the SMTP server of SMTP_URL. Each email is drawn, built and sent on the mail's
 * own thread (`mail-thread.ts`): nodemailer's SMTP exchange and its socket writes (about 4 ms an email)
 * no longer share the event loop with check-ins, and nodemailer is loaded by that thread only. The
 * thread keeps a pool of a few connections, every wait bounded (connecting, the greeting, an idle socket,
 * and the whole send), so a hung server costs a retry, never a hung issuer. Each send ends in one of
 * three outcomes: sent, temporary (try again later) or permanent (the server refused this message for
 * good), classified here from what the thread saw. The thread starts at the first email, runs at a
 * lower priority than the event loop (no one waits for an email), and ends after a while without mail.
 */
import { Worker } from 'node:worker_threads';
import { niceSource, THREAD_IDLE_MS } from '../domain/thread-pool.ts';
import type { TicketMail } from './mail-message.ts';
import { MAIL_THREAD_SOURCE, mailThreadData } from './mail-thread.ts';

/** What became of one send. `error`: the server's reply or what went wrong, never a secret. */
export type SendOutcome =
  { kind: 'sent' } | { kind: 'temporary'; error: string } | { kind: 'permanent'; error: string };

export interface MailTransportOptions {
  smtpUrl: string;
  /** Connections to the server at once (and so sends at once). */
  maxConnections?: number;
  /** Milliseconds one send may take in all, connecting included. */
  sendTimeoutMs?: number;
}

/** The longest error text recorded: a server's reply may be long, a record need not be. */
const MAX_ERROR = 500;

interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
  permanent?: boolean;
  originalCode?: string;
}

/** Any SMTP URL's password left in a text (a library's message may quote its options). */
const URL_PASSWORD = /(smtps?:\/\/[^:/@\s"]*:)[^@/\s"]+@/gi;

/** One line, without secrets, at most MAX_ERROR characters. */
export function cleanError(text: string, password: string | null): string {
  let clean = text.replace(URL_PASSWORD, '$1[redacted]@').replace(/\s+/g, ' ').trim();
  if (password) clean = clean.split(password).join('[redacted]');
  return clean.length > MAX_ERROR ? `${clean.slice(0, MAX_ERROR - 1)}…` : clean;
}

/**
 * An error's outcome: a reply of the 5xx class (the library's `permanent`, which treats 503 as
 * temporary) fails the message; a 4xx reply, no answer, a refused or reset connection, a timeout, a
 * DNS failure and a refused login are temporary (a login refused is the issuer's settings, not the
 * message: mended and restarted, the mail goes out).
 */
export function classify(error: unknown, password: string | null): SendOutcome {
  const e = (error ?? {}) as SmtpError;
  const reply = e.response ? e.response : (e.message ?? String(error));
  const text = cleanError(
    e.responseCode !== undefined ? reply : `${e.originalCode ?? e.code ?? 'ERROR'}: ${e.message ?? String(error)}`,
    password,
  );
  const permanent = e.code !== 'EAUTH' && e.responseCode !== undefined && (e.permanent ?? e.responseCode >= 500);
  return permanent ? { kind: 'permanent', error: text } : { kind: 'temporary', error: text };
}

/**
 * The mail thread's nice value: about a tenth of the CPU of a thread at 0 when both want it. Not 19
 * (a sixtieth): on a machine kept busy by other work the thread would starve, and mail never go.
 */
const BACKGROUND_NICE = 10;

/** Beyond its own bound, how long the event loop waits for the thread's answer (a thread starved of CPU). */
const ANSWER_GRACE_MS = 1000;

/** What the thread answers for one email (see `mail-thread.ts`). */
type ThreadAnswer =
  | { unbuilt: string }
  | { late: true }
  | { timedOut: true }
  | { sent: { rejected: number; response?: string } }
  | { failed: SmtpError };

interface Waiting {
  resolve: (answer: ThreadAnswer) => void;
  reject: (error: Error) => void;
}

export class MailTransport {
  private readonly password: string | null;
  private readonly sendTimeoutMs: number;
  private readonly workerData: Record<string, unknown>;
  private readonly waiting = new Map<number, Waiting>();
  private worker: Worker | null = null;
  private idle: NodeJS.Timeout | null = null;
  private nextId = 0;
  private closed = false;

  constructor(options: MailTransportOptions) {
    const url = new URL(options.smtpUrl);
    this.password = url.password === '' ? null : decodeURIComponent(url.password);
    this.sendTimeoutMs = options.sendTimeoutMs ?? 60_000;
    this.workerData = mailThreadData({
      smtpUrl: options.smtpUrl,
      maxConnections: options.maxConnections ?? 4,
      sendTimeoutMs: this.sendTimeoutMs,
    });
  }

  /**
   * Draws, builds and sends one email on the mail's thread, never sending it once `startBy` (epoch ms)
   * has passed: answers its outcome, or null when it was built too late to be sent (nothing was sent).
   * Rejects when the email could not be built or the thread failed (nothing was sent either).
   */
  async send(mail: TicketMail, startBy: number): Promise<SendOutcome | null> {
    const id = ++this.nextId;
    const noAnswer = `no answer within ${this.sendTimeoutMs / 1000} s`;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<ThreadAnswer>((resolve) => {
      const ms = Math.max(0, startBy - Date.now()) + this.sendTimeoutMs + ANSWER_GRACE_MS;
      timer = setTimeout(() => {
        this.settled(id);
        resolve({ timedOut: true });
      }, ms);
    });
    let answer: ThreadAnswer;
    try {
      answer = await Promise.race([this.run(id, { ...mail, startBy }), deadline]);
    } finally {
      clearTimeout(timer);
    }
    if ('unbuilt' in answer) throw new Error(`the email could not be built: ${answer.unbuilt}`);
    if ('late' in answer) return null;
    if ('timedOut' in answer) return { kind: 'temporary', error: noAnswer };
    if ('failed' in answer) return classify(answer.failed, this.password);
    if (answer.sent.rejected > 0)
      return { kind: 'permanent', error: cleanError(answer.sent.response ?? 'recipient refused', this.password) };
    return { kind: 'sent' };
  }

  /** Ends the thread and its connections (an email still under way is abandoned: the lease retries it). */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    this.fail(new Error('mail: the transport closed'));
    if (this.idle !== null) clearTimeout(this.idle);
    if (worker !== null) await worker.terminate();
  }

  private run(id: number, job: TicketMail & { startBy: number }): Promise<ThreadAnswer> {
    if (this.closed) return Promise.reject(new Error('mail: the transport is closed'));
    const worker = this.start();
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, ...job });
    });
  }

  /** The thread, started if none runs; held (ref) while it has work. */
  private start(): Worker {
    if (this.idle !== null) clearTimeout(this.idle);
    this.idle = null;
    if (this.worker === null) {
      const worker = new Worker(niceSource(BACKGROUND_NICE) + MAIL_THREAD_SOURCE, {
        eval: true,
        workerData: this.workerData,
      });
      worker.on('message', (answer: ThreadAnswer & { id: number }) => {
        this.waiting.get(answer.id)?.resolve(answer);
        this.settled(answer.id);
      });
      worker.on('error', (error) => this.ended(worker, error));
      worker.on('exit', () => this.ended(worker, new Error('mail: the thread ended')));
      this.worker = worker;
    }
    this.worker.ref();
    return this.worker;
  }

  /** One email's wait is over: with none left, the thread no longer holds the process and ends after a while. */
  private settled(id: number): void {
    this.waiting.delete(id);
    const worker = this.worker;
    if (this.waiting.size > 0 || worker === null) return;
    worker.unref();
    if (this.idle !== null) clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      this.idle = null;
      if (this.worker !== worker || this.waiting.size > 0) return;
      this.worker = null;
      void worker.terminate();
    }, THREAD_IDLE_MS);
    this.idle.unref();
  }

  /** The thread failed or ended: the emails it held fail (retried shortly), the next email starts another. */
  private ended(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = null;
    this.fail(error);
  }

  private fail(error: Error): void {
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }
}
