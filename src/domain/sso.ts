/**
 * Single sign-on with OpenID Connect: the authorization code flow with PKCE, state and nonce, through
 * openid-client. The provider's metadata is discovered once and kept; while the provider does not
 * answer, sign-on is unavailable for a few seconds at a time and the issuer tries again after.
 */
import { createHash } from 'node:crypto';
import type { Configuration } from 'openid-client';
import type { OidcSettings } from '../config.ts';
import type { Store } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { hashesEqual, hashSecret } from './ids.ts';
import { seal, unseal } from './key-encryption.ts';
import { toStored } from './time.ts';

/** An attempt must come back from the provider within this time. */
export const SSO_ATTEMPT_MS = 10 * 60_000;
/** After the provider failed to answer, sign-on is refused this long before the next try. */
export const PROVIDER_RETRY_SECONDS = 5;
/** openid-client, loaded at the first sign-on: an issuer without single sign-on never loads it. */
const openIdClient = () => import('openid-client');

/** How long the provider has to answer each request (discovery, code exchange, user info). */
const PROVIDER_TIMEOUT_SECONDS = 5;
/** What the issuer asks the provider for: who the person is, and their address. */
const SCOPE = 'openid email profile';

/** The provider does not answer (or its discovery document is unusable): retry after the given seconds. */
export class ProviderUnavailable extends Error {
  constructor(
    readonly retryAfterSeconds: number,
    options?: ErrorOptions,
  ) {
    super('the single sign-on provider does not answer', options);
    this.name = 'ProviderUnavailable';
  }
}

/** Why a callback signs nobody in; the console shows it in words (`/console/#sso_error=<reason>`). */
export type SsoRefusal =
  /** The attempt is unknown, used, expired, or was started in another browser. */
  | 'expired'
  /** The provider answered with an error (the person declined, or the provider refused the client). */
  | 'denied'
  /** The code exchange or the ID token's checks failed. */
  | 'failed'
  /** The provider could not be reached to finish. */
  | 'unavailable'
  /** The provider gave no email, or does not vouch for it (email_verified is not true). */
  | 'unverified'
  /** No person has this email (and OIDC_DEFAULT_ROLE is unset). */
  | 'unknown'
  /** The person with this email is linked to another subject of the provider. */
  | 'linked'
  /** The person is disabled. */
  | 'disabled';

/** Who the provider says signed in. */
export interface SsoIdentity {
  /** The provider's issuer identifier (the ID token's `iss`, checked against the discovered one). */
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
}

export interface StartedSso {
  /** The provider's authorization URL to redirect to. */
  location: string;
  /** The attempt's state: the browser keeps it in a cookie (see the routes), the store only its digest. */
  state: string;
}

/** The attempt's key in the store: SHA-256 of its state. */
const stateHash = (state: string): string => createHash('sha256').update(state, 'utf8').digest('base64url');
/** The label the sealed secrets are bound to: a row's content cannot be moved to another attempt. */
const sealLabel = (hash: string): string => `sso_login:${hash}`;

/** Whether an error is the provider not answering in time, rather than answering something wrong. */
function isUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return true;
  // fetch's own failure (refused, reset, no route, DNS) is a TypeError with the system error as cause.
  return error instanceof TypeError && error.cause !== undefined;
}

function isLoopbackHttp(url: string): boolean {
  return new URL(url).protocol === 'http:';
}

export class SingleSignOn {
  private discovered: Promise<Configuration> | null = null;
  private failedUntil = 0;

  constructor(
    private readonly settings: OidcSettings,
    /** `<BASE_URL>/admin/v1/sso/callback`, as registered at the provider. */
    readonly redirectUri: string,
    private readonly store: Store,
    private readonly keyEncryptionKey: Buffer,
    private readonly clock: Clock,
    private readonly warn: (error: unknown, message: string) => void,
  ) {}

  /** The provider's configuration: discovered once; after a failure, not asked again for a few seconds. */
  private provider(): Promise<Configuration> {
    if (this.discovered) return this.discovered;
    const now = this.clock.now().getTime();
    if (now < this.failedUntil) {
      return Promise.reject(new ProviderUnavailable(Math.max(1, Math.ceil((this.failedUntil - now) / 1000))));
    }
    this.discovered = this.discover().catch((error: unknown) => {
      this.discovered = null;
      this.failedUntil = this.clock.now().getTime() + PROVIDER_RETRY_SECONDS * 1000;
      this.warn(error, 'single sign-on provider discovery failed');
      throw new ProviderUnavailable(PROVIDER_RETRY_SECONDS, { cause: error });
    });
    return this.discovered;
  }

  private async discover(): Promise<Configuration> {
    const { issuerUrl, clientId, clientSecret } = this.settings;
    const oidc = await openIdClient();
    const insecure = isLoopbackHttp(issuerUrl);
    const options = { timeout: PROVIDER_TIMEOUT_SECONDS, execute: insecure ? [oidc.allowInsecureRequests] : [] };
    // client_secret_basic is what a provider assumes of a client registered without saying (OpenID
    // Connect Registration); client_secret_post only when the provider offers nothing else.
    const found = await oidc.discovery(new URL(issuerUrl), clientId, clientSecret, oidc.ClientSecretBasic(), options);
    const methods = found.serverMetadata().token_endpoint_auth_methods_supported;
    if (!methods || methods.includes('client_secret_basic') || !methods.includes('client_secret_post')) return found;
    const posting = new oidc.Configuration(found.serverMetadata(), clientId, clientSecret, oidc.ClientSecretPost());
    posting.timeout = PROVIDER_TIMEOUT_SECONDS;
    if (insecure) oidc.allowInsecureRequests(posting);
    return posting;
  }

  /**
   * Starts an attempt: a fresh state, PKCE code verifier and nonce; the verifier and nonce are sealed
   * with the key-encryption key and stored under the state's digest for SSO_ATTEMPT_MS. Throws
   * ProviderUnavailable while the provider cannot be discovered.
   */
  async start(): Promise<StartedSso> {
    const config = await this.provider();
    const oidc = await openIdClient();
    const state = oidc.randomState();
    const verifier = oidc.randomPKCECodeVerifier();
    const nonce = oidc.randomNonce();
    const hash = stateHash(state);
    const now = this.clock.now();
    await this.store.sso.putLogin({
      state_hash: hash,
      sealed: seal(this.keyEncryptionKey, Buffer.from(JSON.stringify({ verifier, nonce }), 'utf8'), sealLabel(hash)),
      created_at: toStored(now),
      expires_at: toStored(new Date(now.getTime() + SSO_ATTEMPT_MS)),
    });
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: SCOPE,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { location: url.href, state };
  }

  /**
   * Finishes an attempt from the callback's query: the attempt is taken (once: a replayed callback
   * finds nothing), it must be the one this browser started (`browserState`, from its cookie), then
   * the code is exchanged with the verifier and the ID token checked (signature, issuer, audience,
   * expiry, nonce). The email comes from the ID token, or from the user info endpoint when the ID
   * token does not carry it with email_verified.
   */
  async finish(query: URLSearchParams, browserState: string | null): Promise<SsoIdentity | SsoRefusal> {
    const state = query.get('state');
    if (state === null || state === '' || state.length > 512) return 'expired';
    const hash = stateHash(state);
    const login = await this.store.sso.takeLogin(hash);
    if (login === null || login.expires_at <= toStored(this.clock.now())) return 'expired';
    // Digests of both sides have one length: the comparison takes one time whatever was sent.
    if (browserState === null || !hashesEqual(hashSecret(browserState), hashSecret(state))) return 'expired';
    if (query.has('error')) return 'denied';
    let secrets: { verifier: string; nonce: string };
    try {
      secrets = JSON.parse(unseal(this.keyEncryptionKey, login.sealed, sealLabel(hash)).toString('utf8'));
    } catch (error) {
      // Started by an instance with another key-encryption key (they must share one).
      this.warn(error, 'a single sign-on attempt could not be opened with this key-encryption key');
      return 'failed';
    }
    const { verifier, nonce } = secrets;
    try {
      const config = await this.provider();
      const oidc = await openIdClient();
      const callback = new URL(this.redirectUri);
      callback.search = query.toString();
      const tokens = await oidc.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: verifier,
        expectedNonce: nonce,
        expectedState: state,
        idTokenExpected: true,
      });
      const claims = tokens.claims()!;
      const fromToken = identityOf(claims.iss, claims.sub, claims);
      if (fromToken.email !== null && typeof claims.email_verified === 'boolean') return fromToken;
      if (!config.serverMetadata().userinfo_endpoint) return fromToken;
      return identityOf(claims.iss, claims.sub, await oidc.fetchUserInfo(config, tokens.access_token, claims.sub));
    } catch (error) {
      if (error instanceof ProviderUnavailable || isUnreachable(error)) return 'unavailable';
      this.warn(error, 'single sign-on failed at the provider');
      return 'failed';
    }
  }
}

/**
 * The identity in a set of claims; only email_verified of exactly true vouches for the address, which
 * is kept as the provider spelled it (see `emailKey` for how it is compared).
 */
function identityOf(issuer: string, subject: string, claims: Record<string, unknown>): SsoIdentity {
  const email = typeof claims.email === 'string' && claims.email !== '' ? claims.email : null;
  const name = typeof claims.name === 'string' && claims.name.trim() !== '' ? claims.name.trim() : null;
  return { issuer, subject, email, emailVerified: claims.email_verified === true, name };
}
