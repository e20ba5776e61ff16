import type { Config } from '../config.ts';
import { appleSecrets } from '../config-apple.ts';
import { ADMIN_SESSION_PREFIX } from '../domain/admin-sessions.ts';
import { API_KEY_PREFIX, ENROLLMENT_TOKEN_PREFIX, ADMIN_TOKEN_PREFIX, PERSONAL_TOKEN_PREFIX } from '../domain/ids.ts';
import { INVITE_PREFIX } from '../domain/people.ts';
import { WEBHOOK_SECRET_PREFIX } from '../webhooks/signing.ts';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The secrets of the configuration, which have no shape of their own: masked by value wherever a log
 * line or an audit entry could carry them. One list, so that the logs and the trail cannot drift apart.
 */
export function configuredSecrets(config: Config): (string | null)[] {
  return [
    config.adminToken,
    config.metricsToken,
    config.oidc?.clientSecret ?? null,
    config.redisPasswords.redis,
    config.redisPasswords.sentinel,
    ...appleSecrets(config.apple),
    config.googleWallet?.privateKey ?? null,
    config.mail?.smtpPassword ?? null,
  ];
}

/**
 * Masks anything shaped like a secret in a written log line: `sk_live_…`, `st_…`, `at_…`, a console
 * session id `as_…`, a person's API token `iat_…`, an invitation's token `inv_…`, a webhook
 * endpoint's secret `whsec_…` (base64, so `+`, `/` and `=` too; raw,
 * percent-encoded or JSON-escaped, wherever it travels: a path, a query, a header, a cookie) and each
 * configured secret (the admin token, METRICS_TOKEN, OIDC_CLIENT_SECRET, REDIS_PASSWORD,
 * REDIS_SENTINEL_PASSWORD, the Apple Wallet keys and APPLE_PASS_KEY_PASSPHRASE, the Google Wallet service
 * account's private key, the password in SMTP_URL), which has no shape of its own, the password of any
 * `smtp://` or `smtps://` URL, the `code` and `state` of a URL's query, and a holder link's token (`/t/…`).
 * Applied to the whole line, so no field can carry one past it, whoever logged it.
 */
export function secretMasker(configured: readonly (string | null)[]): (line: string) => string {
  const prefixes = [
    API_KEY_PREFIX,
    ENROLLMENT_TOKEN_PREFIX,
    ADMIN_TOKEN_PREFIX,
    ADMIN_SESSION_PREFIX,
    PERSONAL_TOKEN_PREFIX,
    INVITE_PREFIX,
  ];
  const shapes = prefixes.map((prefix) => `(?<![A-Za-z0-9_])${escape(prefix)}[A-Za-z0-9_%-]{8,}`);
  shapes.push(`(?<![A-Za-z0-9_])${escape(WEBHOOK_SECRET_PREFIX)}(?:[A-Za-z0-9+/=%_-]|\\\\/){8,}`);
  // A single sign-on callback's code and state (`/admin/v1/sso/callback?code=…&state=…`): each works
  // once and only with the attempt's verifier, but a log is no place for either.
  // Never a backslash: in a JSON line it starts an escape (`\"`), which must stay whole.
  shapes.push('(?<=[?&](?:code|state)=)[^&\\s"#\\\\]+');
  // The password of an SMTP URL (`smtps://user:password@host`), whichever URL a message quotes.
  shapes.push('(?<=smtps?://[^:/@\\s"]*:)[^@/\\s"]+(?=@)');
  // A holder link's token (`/t/<holder token>`, in a request's path or a ticket's holder_url): it shows
  // the ticket's QR code to whoever has it.
  shapes.push('(?<=/t/)[A-Za-z0-9_-]{16,}');
  for (const secret of configured) {
    if (secret === null) continue;
    shapes.push(escape(secret), escape(encodeURIComponent(secret)), escape(JSON.stringify(secret).slice(1, -1)));
  }
  const pattern = new RegExp(shapes.join('|'), 'g');
  return (line) => line.replace(pattern, '[redacted]');
}
