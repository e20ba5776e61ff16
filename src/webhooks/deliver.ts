/**
 * One delivery attempt: a POST of the message's body with the Standard Webhooks headers, a 2xx within
 * the timeout delivers it. Redirects are not followed (their status is the attempt's). The response
 * body is read and dropped (at most 64 KiB of it). Without WEBHOOK_ALLOW_PRIVATE, the connection is
 * made only to a public address: request-filtering-agent checks the address it connects to by
 * ipaddr.js's ranges, and the agents below check it again by isPublicAddress, which also refuses the
 * IPv6 ranges ipaddr.js calls unicast that lead inside (an IPv4-compatible `::7f00:1`, local NAT64).
 */
import dns, { type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { isPublicAddress } from './receiver-url.ts';
import { parseRetryAfter } from '../outbox/schedule.ts';

export interface AttemptOutcome {
  status_code: number | null;
  /** What went wrong when there is no status (or a short word on a non-2xx one); null when delivered. */
  error: string | null;
  duration_ms: number;
  /** The receiver's `Retry-After`, in seconds, when it sent one. */
  retry_after_s: number | null;
}

const MAX_RESPONSE_BYTES = 64 * 1024;

function notAllowed(address: string, host: string): Error {
  return new Error(`connecting to ${address} (host ${host}) is not allowed: not a public address`);
}

/** dns.lookup passing on public addresses only (a host any of whose addresses is not public fails). */
const publicLookup = ((
  hostname: string,
  options: dns.LookupOptions,
  callback: (error: Error | null, address?: string | LookupAddress[], family?: number) => void,
) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error);
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused !== undefined) return callback(notAllowed(refused.address, hostname));
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}) as unknown as typeof dns.lookup;

type Connect = (
  options: net.NetConnectOpts & { host?: string },
  done?: (error: Error | null, socket: Duplex) => void,
) => Duplex;

/** Refuses a literal address that is not public; else connects through `connect`, resolving with publicLookup. */
function guardedConnection(connect: Connect): Connect {
  return (options, done) => {
    const host = options.host ?? '';
    if (net.isIP(host) !== 0 && !isPublicAddress(host)) {
      const socket = new net.Socket();
      if (done) done(notAllowed(host, host), socket);
      else socket.destroy(notAllowed(host, host));
      return socket;
    }
    return connect({ ...options, lookup: publicLookup }, done);
  };
}

interface Agents {
  http: http.Agent;
  https: https.Agent;
}

/**
 * The filtering agents, made at the first delivery: request-filtering-agent (and ipaddr.js with it)
 * loads then, not at start, so an issuer without webhooks never holds it.
 */
async function publicAgents(options: http.AgentOptions): Promise<Agents> {
  const { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } = await import('request-filtering-agent');
  class PublicHttpAgent extends RequestFilteringHttpAgent {
    override createConnection = guardedConnection(super.createConnection.bind(this) as Connect) as never;
  }
  class PublicHttpsAgent extends RequestFilteringHttpsAgent {
    override createConnection = guardedConnection(super.createConnection.bind(this) as Connect) as never;
  }
  return { http: new PublicHttpAgent(options), https: new PublicHttpsAgent(options) };
}

/** Agents kept across attempts (keep-alive to a receiver), filtering or not, made at the first attempt. */
export class Transport {
  private agents: Promise<Agents> | null = null;

  constructor(private readonly allowPrivate: boolean) {}

  private agentsNow(): Promise<Agents> {
    const options = { keepAlive: true, maxSockets: 64 };
    this.agents ??= this.allowPrivate
      ? Promise.resolve({ http: new http.Agent(options), https: new https.Agent(options) })
      : publicAgents(options);
    return this.agents;
  }

  async post(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<AttemptOutcome> {
    const started = performance.now();
    const agents = await this.agentsNow();
    return this.send(agents, started, url, body, headers, timeoutMs);
  }

  private send(
    agents: Agents,
    started: number,
    url: string,
    body: string,
    headers: Record<string, string>,
    timeoutMs: number,
  ): Promise<AttemptOutcome> {
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
          agent: target.protocol === 'https:' ? agents.https : agents.http,
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
    void this.agents?.then((agents) => {
      agents.http.destroy();
      agents.https.destroy();
    });
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
