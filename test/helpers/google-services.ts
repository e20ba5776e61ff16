/**
 * Stand-ins for Google's token endpoint and the Wallet REST API on a local HTTPS server (a certificate
 * made with openssl for 127.0.0.1), checking what Google checks: the JWT-bearer grant and its signed
 * assertion, then the bearer token, method, path and body of each patch.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { jwtVerify } from 'jose';

/** A self-signed certificate for 127.0.0.1, made in `dir`: the test trusts it as its own authority. */
export function testCertificate(dir: string): { cert: string; key: string } {
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1'].concat([
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ]),
    { stdio: 'ignore' },
  );
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

export interface PatchSeen {
  objectId: string;
  body: Record<string, unknown>;
  token: string;
}

export interface StandInOptions {
  clientEmail: string;
  tls: { cert: string; key: string };
}

/** Google, as far as the issuer talks to it. */
export class GoogleStandIn {
  readonly server: Server;
  /** Tokens handed out and still accepted by the API. */
  readonly validTokens = new Set<string>();
  tokenRequests = 0;
  /** Why the token endpoint refused, each time it did. */
  readonly tokenRefusals: string[] = [];
  readonly patches: PatchSeen[] = [];
  /** Saved objects by id: a patch of another answers 404, as Google does for a pass never saved. */
  readonly objects = new Map<string, Record<string, unknown>>();
  /** Answers given to the next patches instead of the real one, first first. */
  readonly scripted: { status: number; headers?: Record<string, string>; body?: string }[] = [];
  /** Lifetime of the tokens handed out, in seconds. */
  tokenLifetimeS = 3600;
  url = '';
  /** The service account's public key: assertions must verify against it (set once the key file exists). */
  publicKey: KeyObject | null = null;

  constructor(private readonly options: StandInOptions) {
    this.server = createServer({ cert: options.tls.cert, key: options.tls.key }, (req, res) => {
      void this.handle(req, res);
    });
  }

  get tokenUri(): string {
    return `${this.url}/token`;
  }
  get apiUrl(): string {
    return `${this.url}/walletobjects/v1`;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const reply = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(typeof value === 'string' ? value : JSON.stringify(value));
    };
    if (req.url === '/token') {
      const refusal = await this.checkGrant(req, body);
      if (refusal !== null) {
        this.tokenRefusals.push(refusal);
        return reply(400, { error: 'invalid_grant', error_description: refusal });
      }
      this.tokenRequests += 1;
      const token = `ya29.${randomBytes(24).toString('base64url')}`;
      this.validTokens.add(token);
      return reply(200, { access_token: token, expires_in: this.tokenLifetimeS, token_type: 'Bearer' });
    }
    const match = /^\/walletobjects\/v1\/eventTicketObject\/([^/?]+)$/.exec(req.url ?? '');
    if (match === null) return reply(404, { error: { code: 404, message: 'unknown path' } });
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (!this.validTokens.has(token)) return reply(401, { error: { code: 401, message: 'invalid credentials' } });
    if (req.method !== 'PATCH') return reply(405, { error: { code: 405, message: 'method' } });
    if (req.headers['content-type'] !== 'application/json')
      return reply(400, { error: { code: 400, message: 'type' } });
    const objectId = decodeURIComponent(match[1]!);
    const patch = JSON.parse(body) as Record<string, unknown>;
    this.patches.push({ objectId, body: patch, token });
    const scripted = this.scripted.shift();
    if (scripted !== undefined) return reply(scripted.status, scripted.body ?? '{}', scripted.headers);
    const saved = this.objects.get(objectId);
    if (saved === undefined) return reply(404, { error: { code: 404, message: `No resource with id ${objectId}` } });
    Object.assign(saved, patch);
    return reply(200, saved);
  }

  /** What Google's token endpoint checks of a JWT-bearer grant; null when it passes. */
  private async checkGrant(req: IncomingMessage, body: string): Promise<string | null> {
    if (req.method !== 'POST') return 'not a POST';
    if (req.headers['content-type'] !== 'application/x-www-form-urlencoded') return 'not a form';
    const form = new URLSearchParams(body);
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return 'grant_type';
    try {
      const { payload } = await jwtVerify(form.get('assertion') ?? '', this.publicKey!, {
        algorithms: ['RS256'],
        issuer: this.options.clientEmail,
        audience: this.tokenUri,
        requiredClaims: ['iat', 'exp'],
      });
      if (payload.scope !== 'https://www.googleapis.com/auth/wallet_object.issuer') return 'scope';
      if (payload.exp! - payload.iat! > 3600) return 'exp more than an hour after iat';
      return null;
    } catch (error) {
      return `assertion: ${(error as Error).message}`;
    }
  }
}
