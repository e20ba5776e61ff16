/**
 * A webhook receiver on 127.0.0.1, as an organizer's would be: it records every request and answers
 * as the test tells it (200 by default). Messages are checked with the `standardwebhooks` package.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** When it arrived (ms since the epoch). */
  at: number;
  headers: http.IncomingHttpHeaders;
}

export type Answer = { status: number; headers?: Record<string, string> };

export class Receiver {
  readonly requests: Received[] = [];
  /** Decides each answer from the request (default: 200). */
  answer: (request: Received, index: number) => Answer | Promise<Answer> = () => ({ status: 200 });
  /** How long each answer is held back (ms): long enough for a second attempt of one message to overlap. */
  holdMs = 0;
  /** webhook-ids that arrived while an attempt with the same id was still open. */
  readonly overlaps: string[] = [];
  private readonly open = new Set<string>();
  private readonly server: http.Server;

  private constructor(server: http.Server) {
    this.server = server;
  }

  static async start(port = 0): Promise<Receiver> {
    const server = http.createServer();
    const receiver = new Receiver(server);
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', async () => {
        const received: Received = {
          id: String(request.headers['webhook-id']),
          timestamp: String(request.headers['webhook-timestamp']),
          signature: String(request.headers['webhook-signature']),
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
          headers: request.headers,
        };
        const index = receiver.requests.push(received) - 1;
        if (receiver.open.has(received.id)) receiver.overlaps.push(received.id);
        receiver.open.add(received.id);
        const answer = await receiver.answer(received, index);
        if (receiver.holdMs > 0) await new Promise((resolve) => setTimeout(resolve, receiver.holdMs));
        receiver.open.delete(received.id);
        response.writeHead(answer.status, answer.headers ?? {});
        response.end();
      });
    });
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The distinct webhook-ids received so far. */
  ids(): Set<string> {
    return new Set(this.requests.map((r) => r.id));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  /** The parsed bodies of the requests so far. */
  bodies(): { type: string; timestamp: string; data: Record<string, unknown> }[] {
    return this.requests.map(
      (r) => JSON.parse(r.body) as { type: string; timestamp: string; data: Record<string, unknown> },
    );
  }

  /** Waits until `count` requests matching `match` arrived (polling; fails after `timeoutMs`). */
  async waitFor(match: (r: Received) => boolean, count = 1, timeoutMs = 10_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.requests.filter(match);
      if (found.length >= count) return found;
      if (Date.now() > deadline) {
        throw new Error(
          `waited ${timeoutMs} ms for ${count} request(s); ${found.length} came (${this.requests.length} in all)`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /**
   * Waits for a message of this type signed with this secret (other endpoints' messages, signed with
   * their own, are passed over) and returns its verified payload.
   */
  async message(secret: string, type: string, timeoutMs = 10_000) {
    const signed = (r: Received) => {
      try {
        verify(secret, r);
        return true;
      } catch {
        return false;
      }
    };
    const [request] = await this.waitFor(
      (r) => (JSON.parse(r.body) as { type: string }).type === type && signed(r),
      1,
      timeoutMs,
    );
    return { request: request!, payload: verify(secret, request!) };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close').catch(() => undefined);
  }
}

/** What a receiver does with the `standardwebhooks` package: verify the signature, then parse. */
export function verify(secret: string, request: Received) {
  return new Webhook(secret).verify(request.body, {
    'webhook-id': request.id,
    'webhook-timestamp': request.timestamp,
    'webhook-signature': request.signature,
  }) as { type: string; timestamp: string; data: Record<string, unknown> };
}
