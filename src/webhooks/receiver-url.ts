/**
 * Where a webhook may be sent: `http` or `https`, no user info, at most 2,048 characters, and, unless
 * WEBHOOK_ALLOW_PRIVATE, a host that neither is nor resolves to a loopback, private, link-local,
 * unique-local or otherwise non-public address (ipaddr.js classifies them, and a few IPv6 ranges it
 * calls unicast are refused too: see INNER_IPV6). Checked when an endpoint is created or changed; each
 * attempt checks the address it connects to again (deliver.ts), so a DNS answer that changed later
 * cannot reach into the issuer's own network.
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

/**
 * IPv6 ranges that ipaddr.js calls `unicast` but that carry an IPv4 address, or reach a network of
 * the site, rather than the internet: IPv4-compatible addresses (`::a.b.c.d`, deprecated; `[::127.0.0.1]`
 * in a URL reads `[::7f00:1]`), the local-use NAT64 prefix (RFC 8215, translated to IPv4 inside the
 * site, private addresses included) and site-local addresses (deprecated, still routed by some networks).
 */
const INNER_IPV6 = ['::/96', '64:ff9b:1::/48', 'fec0::/10'].map((cidr) => ipaddr.IPv6.parseCIDR(cidr));

/** Whether an address is public (ipaddr.js's `unicast` range, less INNER_IPV6; IPv4-mapped IPv6 judged as IPv4). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  if (parsed.range() !== 'unicast') return false;
  return parsed.kind() === 'ipv4' || !INNER_IPV6.some((range) => (parsed as ipaddr.IPv6).match(range));
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
