/**
 * The seam between the SDK and a runtime's HTTP stack. The SDK asks for one exchange at a time and
 * needs only the status, a header or two and the body as text; `fetch` is the default everywhere,
 * and a runtime with a cheaper client can pass its own (the Node CLI uses `node:http`, see
 * `./node-http.ts`).
 */

/** One request as the client sends it. */
export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** How long the client waits for the whole answer; then the transport rejects with `timeoutError()`. */
  timeoutMs: number;
}

/** One answer: its status, its headers by lower-case name, its body as text. */
export interface HttpAnswer {
  status: number;
  header(name: string): string | null;
  body: string;
}

/**
 * Sends a request and reads the whole answer. Rejects when no answer came; the socket error's code
 * is on the error or on its `cause` (as `fetch` reports it), so the client can tell a request that
 * never left from one that may have arrived.
 */
export type Transport = (request: HttpRequest) => Promise<HttpAnswer>;

/** The error a transport rejects with when the answer did not come in time. */
export function timeoutError(): Error {
  return new DOMException('the answer did not come in time', 'TimeoutError');
}

/** A transport over a `fetch` implementation (the global one by default). */
export function fetchTransport(fetchImpl: typeof fetch = globalThis.fetch.bind(globalThis)): Transport {
  return async ({ method, url, headers, body, timeoutMs }) => {
    // A plain controller and timer: AbortSignal.timeout costs more per request, and a sync makes thousands.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(timeoutError()), timeoutMs);
    try {
      const res = await fetchImpl(url, { method, headers, body, signal: controller.signal });
      const text = await res.text();
      return { status: res.status, header: (name) => res.headers.get(name), body: text };
    } finally {
      clearTimeout(timer);
    }
  };
}
