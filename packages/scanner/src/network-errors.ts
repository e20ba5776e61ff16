/** A request that failed on the way: a typed error that says whether it may have reached the issuer. */
import { IssuerNetworkError } from './errors.ts';

/** Connection failures that happen before a request leaves the device: it certainly did not arrive. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

type Coded = { code?: unknown; errors?: { code?: unknown }[] };

/**
 * The socket error codes of a failed request: on the error itself (node:http), or on its `cause`
 * (fetch), and on each error of an AggregateError (a connection tried on several addresses).
 */
function causeCodes(error: unknown): string[] {
  const codesOf = (e: Coded | undefined) => [e?.code, ...(e?.errors ?? []).map((inner) => inner.code)];
  const codes = [...codesOf(error as Coded), ...codesOf((error as { cause?: Coded }).cause)];
  return codes.filter((code): code is string => typeof code === 'string');
}

/** Turns a fetch failure into a typed error that says whether the request may have arrived. */
export function networkError(error: unknown, origin: string): IssuerNetworkError {
  const name = (error as { name?: unknown }).name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new IssuerNetworkError('ISSUER_TIMEOUT', `the issuer at ${origin} did not answer in time`, 'maybe', error);
  }
  const codes = causeCodes(error);
  const delivery = codes.length > 0 && codes.every((code) => NOT_SENT_CODES.has(code)) ? 'not_sent' : 'maybe';
  const why = codes[0] ?? (error instanceof Error ? error.message : 'network error');
  return new IssuerNetworkError('ISSUER_UNREACHABLE', `cannot reach the issuer at ${origin}: ${why}`, delivery, error);
}

/** The scheme, host and port of a URL, for messages (never a path or query, which could hold a secret). */
export function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the issuer';
  }
}
