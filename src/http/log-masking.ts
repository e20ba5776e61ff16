import { API_KEY_PREFIX, ENROLLMENT_TOKEN_PREFIX, ADMIN_TOKEN_PREFIX } from '../domain/ids.ts';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Masks anything shaped like a secret in a written log line: `sk_live_…`, `st_…`, `at_…` (raw or
 * percent-encoded, wherever it travels: a path, a query, a header) and the configured admin token.
 * Applied to the whole line, so no field can carry one past it, whoever logged it.
 */
export function secretMasker(adminToken: string | null): (line: string) => string {
  const shapes = [API_KEY_PREFIX, ENROLLMENT_TOKEN_PREFIX, ADMIN_TOKEN_PREFIX].map(
    (prefix) => `(?<![A-Za-z0-9_])${escape(prefix)}[A-Za-z0-9_%-]{8,}`,
  );
  if (adminToken !== null) {
    shapes.push(
      escape(adminToken),
      escape(encodeURIComponent(adminToken)),
      escape(JSON.stringify(adminToken).slice(1, -1)),
    );
  }
  const pattern = new RegExp(shapes.join('|'), 'g');
  return (line) => line.replace(pattern, '[redacted]');
}
