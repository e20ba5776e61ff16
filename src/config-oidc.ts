/** Single sign-on with OpenID Connect: the provider, this issuer's client at it, and who may come in. */
import { isIP } from 'node:net';
import { ConfigError, type Env, text } from './config-read.ts';
import { ROLES, type Role } from './domain/roles.ts';

export interface OidcSettings {
  /** The provider's issuer identifier (OIDC_ISSUER_URL), as its discovery document names it. */
  issuerUrl: string;
  clientId: string;
  /** OIDC_CLIENT_SECRET: masked in logs like the admin token. */
  clientSecret: string;
  /**
   * OIDC_DEFAULT_ROLE: the role of a person the provider vouches for (verified email) who was never
   * invited, created on their first sign-in; null (the default): only invited people may sign in.
   */
  defaultRole: Role | null;
}

const NAMES = ['OIDC_ISSUER_URL', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'] as const;

/** http is accepted only on the machine itself (a provider run beside the issuer, as in tests). */
function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return isIP(host) === 6 && host === '::1';
}

function issuerUrl(raw: string): string {
  const url = URL.canParse(raw) ? new URL(raw) : null;
  const secure = url?.protocol === 'https:' || (url?.protocol === 'http:' && isLoopback(url.hostname));
  if (url === null || !secure || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new ConfigError(
      `OIDC_ISSUER_URL must be the provider's https:// issuer URL without query or fragment (http:// only on loopback), got "${raw}"`,
    );
  }
  return raw;
}

/**
 * OIDC_ISSUER_URL, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET: all three, or none (single sign-on off);
 * OIDC_DEFAULT_ROLE only with them.
 */
export function oidcSettings(env: Env): OidcSettings | null {
  const values = NAMES.map((name) => text(env, name));
  const role = text(env, 'OIDC_DEFAULT_ROLE');
  const missing = NAMES.filter((_, i) => values[i] === null);
  if (missing.length === NAMES.length) {
    if (role !== null)
      throw new ConfigError(`OIDC_DEFAULT_ROLE is set but single sign-on is not: set ${NAMES.join(', ')}`);
    return null;
  }
  if (missing.length > 0) {
    throw new ConfigError(
      `single sign-on needs ${NAMES.join(', ')}: ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set`,
    );
  }
  if (role !== null && !(ROLES as readonly string[]).includes(role)) {
    throw new ConfigError(
      `OIDC_DEFAULT_ROLE must be one of ${ROLES.join(', ')} (or unset: invited people only), got "${role}"`,
    );
  }
  const [issuer, clientId, clientSecret] = values as [string, string, string];
  if (/\s/.test(clientId)) throw new ConfigError('OIDC_CLIENT_ID must not contain spaces');
  return { issuerUrl: issuerUrl(issuer), clientId, clientSecret, defaultRole: role as Role | null };
}

/**
 * The warning a start logs when OIDC_DEFAULT_ROLE lets anyone the provider vouches for in as an owner or
 * manager (allowed, for a provider that only the organization's own people can sign in to); null otherwise.
 */
export function oidcDefaultRoleNotice(oidc: OidcSettings | null): string | null {
  const role = oidc?.defaultRole ?? null;
  if (role !== 'owner' && role !== 'manager') return null;
  return (
    `OIDC_DEFAULT_ROLE is ${role}: anyone with a verified email address at ${oidc!.issuerUrl} who signs in ` +
    `becomes ${role === 'owner' ? 'an owner' : 'a manager'}; use it only with a provider that admits the organization's own people alone`
  );
}
