/**
 * One delivery attempt: a POST of the message's body with the Standard Webhooks headers, a 2xx within
 * the timeout delivers it. Redirects are not followed (their status is the attempt's). The response
 * body is read and dropped (at most 64 KiB of it). Without WEBHOOK_ALLOW_PRIVATE, the connection is
 * made only to a public address (request-filtering-agent checks the address it connects to).
 */
import http from 'node:http';
import https from 'node:https';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { parseRetryAfter } from './schedule.ts';

export interface AttemptOutcome {
  status_code: number | null;
  /** What went wrong when there is no status (or a short word on a non-2xx one); null when delivered. */
  error: string | null;
  duration_ms: number;
  /** The receiver's `Retry-After`, in seconds, when it sent one. */
  retry_after_s: number | null;
}

const MAX_RESPONSE_BYTES = 64 * 1024;

/** Agents kept across attempts (keep-alive to a receiver), filtering or not. */
export class Transport {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(allowPrivate: boolean) {
    const options = { keepAlive: true, maxSockets: 64 };
    this.httpAgent = allowPrivate ? new http.Agent(options) : new RequestFilteringHttpAgent(options);
    this.httpsAgent = allowPrivate ? new https.Agent(options) : new RequestFilteringHttpsAgent(options);
  }

  post(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<AttemptOutcome> {
    const started = performance.now();
    const target = new URL(url);
    const client = target.protocol === 'https:' ? https : http;
    return new Promise((resolve) => {
      let settled = false;
      const done = (outcome: Omit<AttemptOutcome, 'duration_ms'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...outcome, duration_ms: Math.round(performance.now() - started) });
      };
      const request = client.request(
        target,
        {
          method: 'POST',
          agent: target.protocol === 'https:' ? this.httpsAgent : this.httpAgent,
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            'user-agent': 'ticket-issuer-webhooks/1',
          },
        },
        (response) => {
          const status = response.statusCode ?? null;
          const retryAfter = parseRetryAfter(headerValue(response.headers['retry-after']), Date.now());
          let received = 0;
          response.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (received > MAX_RESPONSE_BYTES) response.destroy();
          });
          const finish = () =>
            done({
              status_code: status,
              error: status !== null && status >= 200 && status < 300 ? null : statusWord(status),
              retry_after_s: retryAfter,
            });
          response.on('end', finish);
          response.on('close', finish);
          response.on('error', finish);
        },
      );
      const timer = setTimeout(() => {
        request.destroy(new Error('timeout'));
        done({ status_code: null, error: `no answer within ${timeoutMs / 1000} s`, retry_after_s: null });
      }, timeoutMs);
      request.on('error', (error) => done({ status_code: null, error: describe(error), retry_after_s: null }));
      request.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function statusWord(status: number | null): string | null {
  if (status === null) return 'no status';
  if (status >= 300 && status < 400) return 'redirect not followed';
  return null;
}

/** A short text for a connection error (never the message's body or a secret). */
function describe(error: unknown): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (/is not allowed/i.test(message)) return 'address not allowed: a loopback or private network';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET') return 'connection reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (code === 'ETIMEDOUT') return 'connection timed out';
  if ((code !== undefined && code.startsWith('ERR_TLS')) || /certificate/i.test(message)) return 'TLS error';
  return (code ?? message).slice(0, 120);
}
