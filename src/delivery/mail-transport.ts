/**
 * Sending mail through the SMTP server of SMTP_URL: a pool of a few connections, every wait bounded
 * (connecting, the greeting, an idle socket, and the whole send), so a hung server costs a retry,
 * never a hung issuer. Each send ends in one of three outcomes: sent, temporary (try again later) or
 * permanent (the server refused this message for good).
 */
import { createTransport } from 'nodemailer';
import type { MailMessage } from './mail-message.ts';

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

export class MailTransport {
  private readonly transporter: ReturnType<typeof createTransport>;
  private readonly password: string | null;
  private readonly sendTimeoutMs: number;

  constructor(options: MailTransportOptions) {
    const url = new URL(options.smtpUrl);
    this.password = url.password === '' ? null : decodeURIComponent(url.password);
    this.sendTimeoutMs = options.sendTimeoutMs ?? 60_000;
    this.transporter = createTransport({
      url: options.smtpUrl,
      pool: true,
      maxConnections: options.maxConnections ?? 4,
      maxMessages: 100,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
      dnsTimeout: 10_000,
      logger: false,
    });
  }

  /** Sends one message; never throws. */
  async send(message: MailMessage): Promise<SendOutcome> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<SendOutcome>((resolve) => {
      timer = setTimeout(
        () => resolve({ kind: 'temporary', error: `no answer within ${this.sendTimeoutMs / 1000} s` }),
        this.sendTimeoutMs,
      );
    });
    const sent = this.transporter.sendMail(message).then(
      (info: { rejected?: unknown[]; response?: string }) =>
        Array.isArray(info.rejected) && info.rejected.length > 0
          ? ({ kind: 'permanent', error: cleanError(info.response ?? 'recipient refused', this.password) } as const)
          : ({ kind: 'sent' } as const),
      (error: unknown) => classify(error, this.password),
    );
    try {
      return await Promise.race([sent, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes the pool's connections. */
  close(): void {
    this.transporter.close();
  }
}
