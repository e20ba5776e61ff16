/**
 * Apple Push Notification service, as Wallet passes use it: HTTP/2 `POST /3/device/<pushToken>` with
 * `apns-topic: <Pass Type ID>` and the body `{}` (a pass push carries nothing: the device asks the web
 * service what changed). Token authentication: an ES256 JWT (`iss` the team id, `kid` the key id, `iat`)
 * signed by the APNs auth key, kept for 50 minutes (Apple refuses a token older than an hour, and one
 * renewed more often than every 20 minutes). One HTTP/2 connection per client, opened again when lost.
 */
import { type ClientHttp2Session, connect, constants } from 'node:http2';
import type { KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { type Clock, systemClock } from '../domain/clock.ts';

/** How one push ended: sent; the device is gone; try again later; or refused for good. */
export type ApnsOutcome =
  | { kind: 'sent' }
  | { kind: 'unregistered'; reason: string }
  | { kind: 'retry'; reason: string }
  | { kind: 'failed'; reason: string };

export interface ApnsClientOptions {
  /** APNS_URL: `https://api.push.apple.com` unless set. */
  url: string;
  key: KeyObject;
  keyId: string;
  teamId: string;
  clock?: Clock;
  /** Certificates trusted instead of the system's (tests: a local server's CA). */
  ca?: string | Buffer;
  /** A push that has no answer by then is tried again later. */
  timeoutMs?: number;
}

/** A provider token is used this long, then made again. */
export const TOKEN_REUSE_MS = 50 * 60_000;

/** Reasons of a 403 after which a new provider token is made for the next attempt. */
const TOKEN_REASONS = new Set(['ExpiredProviderToken', 'InvalidProviderToken', 'MissingProviderToken']);

/** The APNs reason in an answer's body (`{"reason": "..."}`), or the status alone. */
function reasonOf(status: number, body: string): string {
  try {
    const reason = (JSON.parse(body) as { reason?: unknown }).reason;
    if (typeof reason === 'string' && reason.length <= 100) return `HTTP ${status} ${reason}`;
  } catch {
    // Not JSON: the status says enough.
  }
  return `HTTP ${status}`;
}

export class ApnsClient {
  private session: ClientHttp2Session | null = null;
  private token: { jwt: string; madeAt: number } | null = null;
  private readonly clock: Clock;
  private readonly timeoutMs: number;

  constructor(private readonly o: ApnsClientOptions) {
    this.clock = o.clock ?? systemClock;
    this.timeoutMs = o.timeoutMs ?? 10_000;
  }

  /** The provider token: the one in use while younger than 50 minutes, else a new one. */
  async providerToken(): Promise<string> {
    const now = this.clock.now().getTime();
    if (this.token !== null && now - this.token.madeAt < TOKEN_REUSE_MS && now >= this.token.madeAt) {
      return this.token.jwt;
    }
    const jwt = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: this.o.keyId })
      .setIssuer(this.o.teamId)
      .setIssuedAt(Math.floor(now / 1000))
      .sign(this.o.key);
    this.token = { jwt, madeAt: now };
    return jwt;
  }

  private connection(): ClientHttp2Session {
    if (this.session !== null && !this.session.closed && !this.session.destroyed) return this.session;
    const session = connect(this.o.url, this.o.ca === undefined ? {} : { ca: this.o.ca });
    // Without a listener a lost connection would end the process; the next push opens another.
    session.on('error', () => undefined);
    session.on('close', () => {
      if (this.session === session) this.session = null;
    });
    session.on('goaway', () => {
      if (this.session === session) this.session = null;
    });
    session.unref();
    this.session = session;
    return session;
  }

  /** Sends one pass push; never throws (a failure to connect is a retry). */
  async send(pushToken: string, topic: string): Promise<ApnsOutcome> {
    let answer: { status: number; body: string };
    try {
      const authorization = `bearer ${await this.providerToken()}`;
      answer = await this.post(pushToken, topic, authorization);
    } catch (error) {
      return { kind: 'retry', reason: `APNs unreachable: ${(error as Error).message}` };
    }
    const { status, body } = answer;
    if (status === 200) return { kind: 'sent' };
    const reason = reasonOf(status, body);
    if (status === 410) return { kind: 'unregistered', reason };
    if (status === 429 || status >= 500) return { kind: 'retry', reason };
    if (status === 403 && TOKEN_REASONS.has(reason.replace(/^HTTP 403 /, ''))) {
      this.token = null;
      return { kind: 'retry', reason };
    }
    return { kind: 'failed', reason };
  }

  private post(pushToken: string, topic: string, authorization: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const request = this.connection().request({
        [constants.HTTP2_HEADER_METHOD]: 'POST',
        [constants.HTTP2_HEADER_PATH]: `/3/device/${encodeURIComponent(pushToken)}`,
        [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/json',
        authorization,
        'apns-topic': topic,
        // A pass push has no alert: a background push, which APNs takes only at priority 5.
        'apns-push-type': 'background',
        'apns-priority': '5',
      });
      let status = 0;
      let body = '';
      request.setTimeout(this.timeoutMs, () => request.close(constants.NGHTTP2_CANCEL));
      request.on('response', (headers) => {
        status = Number(headers[constants.HTTP2_HEADER_STATUS]);
      });
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => {
        if (body.length < 4096) body += chunk;
      });
      request.on('end', () => (status === 0 ? reject(new Error('no answer')) : resolve({ status, body })));
      request.on('error', reject);
      request.on('close', () => {
        if (status === 0) reject(new Error('the request was cut off'));
      });
      request.end('{}');
    });
  }

  close(): void {
    this.session?.close();
    this.session = null;
  }
}
