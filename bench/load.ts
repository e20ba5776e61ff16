/** Load from this process with autocannon: a fixed number of requests over keep-alive connections. */
import autocannon from 'autocannon';

export interface LoadResult {
  /** Requests answered per second. */
  rate: number;
  /** Latency percentiles in milliseconds. */
  p50: number;
  p99: number;
  /** Answers outside 2xx, and connection errors or time-outs. */
  non2xx: number;
  errors: number;
  /** How many answers had each status code (e.g. 200 served, 503 shed). */
  statuses: Record<string, number>;
}

export interface LoadOptions {
  url: string;
  connections: number;
  amount: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** The JSON body of request number i (each request may differ: a new ticket, a new key). */
  body?: (i: number) => unknown;
  /** The path of request number i. */
  path?: (i: number) => string;
}

/** Sends `amount` requests over `connections` connections and reports rate and latency. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  let sent = 0;
  // autocannon notices the end of a fixed amount on its one-second tick, so its own duration is
  // rounded up to whole seconds: time the run from the first request to the last answer instead.
  let lastAnswer = 0;
  const started = performance.now();
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    amount: options.amount,
    timeout: 30,
    requests: [
      {
        method: options.method ?? 'GET',
        headers: { 'content-type': 'application/json', ...options.headers },
        onResponse: () => {
          lastAnswer = performance.now();
        },
        setupRequest: (request) => {
          const i = sent++;
          return {
            ...request,
            ...(options.path ? { path: options.path(i) } : {}),
            ...(options.body ? { body: JSON.stringify(options.body(i)) } : {}),
          };
        },
      },
    ],
  });
  const seconds = (lastAnswer - started) / 1000;
  return {
    rate: result.requests.total / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statuses: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count ?? 0]),
    ),
  };
}
