/**
 * Where a webhook may be sent: `http` or `https`, no user info, at most 2,048 characters, and, unless
 * WEBHOOK_ALLOW_PRIVATE, a host that neither is nor resolves to a loopback, private, link-local,
 * unique-local or otherwise non-public address (ipaddr.js classifies them). Checked when an endpoint
 * is created or changed; each attempt checks the address it connects to again (request-filtering-agent),
 * so a DNS answer that changed later cannot reach into the issuer's own network.
 */
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

export const MAX_URL_LENGTH = 2048;

/** What is wrong with the URL's form, or null. */
export function urlFormProblem(raw: string): string | null {
  if (raw.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  if (url.username !== '' || url.password !== '') return 'must not carry user info (user:password@)';
  if (url.hostname === '') return 'must name a host';
  return null;
}

/** Whether an address is public (ipaddr.js's `unicast` range; IPv4-mapped IPv6 judged as IPv4). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/** Null when the URL's host is public (every address it resolves to), else why not. */
export async function privateHostProblem(raw: string): Promise<string | null> {
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (ipaddr.isValid(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      return `host ${host} does not resolve`;
    }
  }
  const inner = addresses.find((address) => !isPublicAddress(address));
  return inner === undefined
    ? null
    : `host ${host} is on a loopback or private network (${inner}); set WEBHOOK_ALLOW_PRIVATE=true to allow it`;
}
