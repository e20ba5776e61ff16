/**
 * Access tokens for the Google Wallet REST API: the OAuth 2.0 JWT-bearer grant (RFC 7523) at the key
 * file's `token_uri`, the assertion signed by the service account's key. google-auth-library's JWT
 * client posts to Google's fixed token address whatever the key file says, so the grant is made here.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import type { GoogleWalletSettings } from '../config-google.ts';
import { sendRequest } from './https-request.ts';

export const WALLET_SCOPE = 'https://www.googleapis.com/auth/wallet_object.issuer';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** An assertion's lifetime: Google accepts at most an hour. */
const ASSERTION_S = 3600;
/** A token is asked for again this long before it expires, so that no request carries one that lapses on the way. */
const EXPIRY_MARGIN_MS = 60_000;

/** No token could be had: the token endpoint did not answer, or refused. The message never carries a secret. */
export class TokenError extends Error {
  constructor(
    message: string,
    /** The endpoint's status; null when it did not answer. */
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'TokenError';
  }
}

export interface TokenOptions {
  timeoutMs: number;
  /** Extra certificate authorities (PEM) to trust. */
  ca?: string | undefined;
  /** The clock, in milliseconds. */
  now?: () => number;
}

/** One service account's access token, reused until shortly before it expires; concurrent askers share one request. */
export class GoogleAccessTokens {
  private readonly key: KeyObject;
  private current: { token: string; expiresAt: number } | null = null;
  private pending: Promise<string> | null = null;
  private readonly now: () => number;

  constructor(
    private readonly settings: GoogleWalletSettings,
    private readonly options: TokenOptions,
  ) {
    this.key = createPrivateKey(settings.privateKey);
    this.now = options.now ?? Date.now;
  }

  /** A token valid for a while yet: the kept one, or a fresh one. */
  token(): Promise<string> {
    if (this.current !== null && this.now() < this.current.expiresAt - EXPIRY_MARGIN_MS) {
      return Promise.resolve(this.current.token);
    }
    return this.refresh();
  }

  /** Drops `rejected` (a token the API refused) and asks for a new one, unless another asker already did. */
  renew(rejected: string): Promise<string> {
    if (this.current !== null && this.current.token !== rejected) return Promise.resolve(this.current.token);
    this.current = null;
    return this.refresh();
  }

  private refresh(): Promise<string> {
    this.pending ??= this.request().finally(() => (this.pending = null));
    return this.pending;
  }

  private async request(): Promise<string> {
    const issuedAt = Math.floor(this.now() / 1000);
    const assertion = await new SignJWT({ scope: WALLET_SCOPE })
      .setProtectedHeader({
        alg: 'RS256',
        typ: 'JWT',
        ...(this.settings.privateKeyId === null ? {} : { kid: this.settings.privateKeyId }),
      })
      .setIssuer(this.settings.clientEmail)
      .setAudience(this.settings.tokenUri)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + ASSERTION_S)
      .sign(this.key);
    let reply;
    try {
      reply = await sendRequest({
        method: 'POST',
        url: this.settings.tokenUri,
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }).toString(),
        ca: this.options.ca,
        timeoutMs: this.options.timeoutMs,
      });
    } catch (error) {
      throw new TokenError(`token endpoint did not answer: ${(error as Error).message}`, null);
    }
    const body = parse(reply.body);
    const token = body?.access_token;
    if (reply.status !== 200 || typeof token !== 'string' || token === '') {
      const why = typeof body?.error === 'string' ? `: ${body.error}` : '';
      throw new TokenError(`token endpoint answered ${reply.status}${why}`, reply.status);
    }
    const lifetimeS = typeof body?.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 3600;
    this.current = { token, expiresAt: this.now() + lifetimeS * 1000 };
    return token;
  }
}

function parse(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
