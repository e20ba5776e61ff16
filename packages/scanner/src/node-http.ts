/**
 * A transport over `node:http` and `node:https` with kept-alive connections, for Node (the CLI).
 * Per request it costs the scanner about a third of the CPU of Node's `fetch`, which is what a sync
 * of thousands of queued scans spends most of its time on. Node-only: not part of the SDK's core.
 */
import http from 'node:http';
import https from 'node:https';
import { type HttpAnswer, type HttpRequest, type Transport, timeoutError } from './transport.ts';

/** Options of the Node transport. */
export interface NodeHttpTransportOptions {
  /** Connections kept per issuer origin (default 64): more requests than that wait for one. */
  maxSockets?: number;
  /** How long a kept-alive connection may stay idle before this side closes it (default 4000 ms). */
  idleTimeoutMs?: number;
}

/** A transport with kept-alive connections, and a way to close them when the work is done. */
export interface NodeHttpTransport extends Transport {
  close(): void;
}

/** An error that says the answer ended before its body did. */
function cutShort(): Error {
  return Object.assign(new Error('the connection closed before the answer was complete'), { code: 'ECONNRESET' });
}

export function nodeHttpTransport(options: NodeHttpTransportOptions = {}): NodeHttpTransport {
  // An idle connection is closed after 4 s by default (sooner when the issuer's Keep-Alive header says
  // so), as undici's fetch does: reusing one that a proxy is closing at that instant would fail the
  // request. The agent closes only idle connections on this timeout; a slow answer is the request
  // timer's business.
  // LIFO reuse keeps the busiest connections warm and lets the others go idle.
  const agentOptions = {
    keepAlive: true,
    timeout: options.idleTimeoutMs ?? 4000,
    maxSockets: options.maxSockets ?? 64,
    scheduling: 'lifo' as const,
  };
  const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) };

  const send = (request: HttpRequest) =>
    new Promise<HttpAnswer>((resolve, reject) => {
      const url = new URL(request.url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        reject(new TypeError(`unsupported protocol ${url.protocol}`));
        return;
      }
      const headers =
        request.body === undefined
          ? request.headers
          : { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) };
      const lib = url.protocol === 'https:' ? https : http;
      const outgoing = lib.request(url, { method: request.method, headers, agent: agents[url.protocol] }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', fail);
        res.on('close', () => {
          if (!res.complete) fail(cutShort());
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({
            status: res.statusCode ?? 0,
            header: (name) => {
              const value = res.headers[name.toLowerCase()];
              return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
            },
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
      });
      // A plain timer rather than an AbortSignal: a sync sends thousands of requests, and a signal
      // costs each of them about a fifth of the client's CPU.
      const timer = setTimeout(() => outgoing.destroy(timeoutError()), request.timeoutMs);
      function fail(error: unknown) {
        clearTimeout(timer);
        reject(error);
      }
      outgoing.on('error', fail);
      outgoing.end(request.body);
    });

  return Object.assign(send, {
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  });
}
