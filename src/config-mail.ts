/** Mail to ticket holders: the SMTP server the issuer sends through, the sender, and the retries. */
import { ConfigError, type Env, HOST_NAME, integer, text } from './config-read.ts';

export interface MailSettings {
  /** SMTP_URL: `smtp://` or `smtps://`, user and password allowed in it (masked in logs and the audit trail). */
  smtpUrl: string;
  /** The password inside SMTP_URL, decoded; null when it holds none. Masked wherever it could be written. */
  smtpPassword: string | null;
  /** MAIL_FROM: the sender, an address with or without a display name (`Box Office <tickets@example.org>`). */
  from: string;
  /** MAIL_RETRY_SCHEDULE_S: delays in seconds after each temporary failure; past the last, the mail has failed. */
  retrySchedule: number[];
  /**
   * MAIL_SEND_TIMEOUT_S: how long one send may take in all (connecting, the greeting, the message);
   * an email cut off by a crash is attempted again once this and its lease's margin have passed.
   */
  sendTimeoutSeconds: number;
}

/** The default retries: a minute, five, fifteen, half an hour, then hours; about 28 h in all. */
export const DEFAULT_MAIL_RETRY_SCHEDULE = '60,300,900,1800,3600,7200,14400,28800,43200';

/** An address `local@domain` as a sender: no spaces, no angle brackets, one `@`, a host name after it. */
const ADDRESS = /^[^\s@<>"(),;:]+@([^\s@<>"(),;:]+)$/;

/** SMTP_URL: unset, or an smtp:// or smtps:// URL with a host (and nothing after the port). */
function smtpUrl(env: Env): { url: string; password: string | null } | null {
  const raw = text(env, 'SMTP_URL');
  if (raw === null) return null;
  const url = URL.canParse(raw) ? new URL(raw) : null;
  const usage =
    'SMTP_URL must be an smtp:// or smtps:// URL with a host, e.g. smtps://user:password@mail.example.org:465';
  if (url === null || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '') {
    // Never the value itself: it may hold a password.
    throw new ConfigError(usage);
  }
  if ((url.pathname !== '' && url.pathname !== '/') || url.hash !== '') {
    throw new ConfigError(`${usage} (no path or fragment)`);
  }
  let password: string | null = null;
  try {
    password = url.password === '' ? null : decodeURIComponent(url.password);
  } catch {
    throw new ConfigError('SMTP_URL has a password that is not valid percent-encoding');
  }
  return { url: raw, password };
}

/** MAIL_FROM: `address` or `Display Name <address>`. */
function mailFrom(raw: string): string {
  const named = /^(.*?)\s*<([^<>]+)>$/.exec(raw);
  const address = named ? named[2]!.trim() : raw;
  const domain = ADDRESS.exec(address)?.[1];
  if (domain === undefined || !HOST_NAME.test(domain) || /[\r\n]/.test(raw) || raw.length > 320) {
    throw new ConfigError(
      `MAIL_FROM must be an email address, optionally with a display name ("Box Office <tickets@example.org>"), got "${raw}"`,
    );
  }
  return raw;
}

/** A list of delays in seconds separated by commas (WEBHOOK_RETRY_SCHEDULE_S's form). */
export function delaySchedule(env: Env, name: string, fallback: string): number[] {
  const raw = text(env, name) ?? fallback;
  const delays = raw.split(',').map((part) => part.trim());
  if (delays.length > 50 || delays.some((d) => !/^\d{1,6}$/.test(d) || Number(d) < 1 || Number(d) > 604_800)) {
    throw new ConfigError(`${name} must be up to 50 delays in seconds (1 to 604800) separated by commas, got "${raw}"`);
  }
  return delays.map(Number);
}

/**
 * SMTP_URL and MAIL_FROM: both (mail on) or neither (off: sending answers 409); MAIL_RETRY_SCHEDULE_S is
 * checked either way.
 */
export function mailSettings(env: Env): MailSettings | null {
  const retrySchedule = delaySchedule(env, 'MAIL_RETRY_SCHEDULE_S', DEFAULT_MAIL_RETRY_SCHEDULE);
  const sendTimeoutSeconds = integer(env, 'MAIL_SEND_TIMEOUT_S', 60, 1, 600);
  const smtp = smtpUrl(env);
  const from = text(env, 'MAIL_FROM');
  if (smtp === null) {
    if (from !== null) throw new ConfigError('MAIL_FROM is set but SMTP_URL is not: set both, or neither');
    return null;
  }
  if (from === null) throw new ConfigError('SMTP_URL is set but MAIL_FROM is not: mail needs a sender address');
  return { smtpUrl: smtp.url, smtpPassword: smtp.password, from: mailFrom(from), retrySchedule, sendTimeoutSeconds };
}
