import { createHash } from 'node:crypto';
import type { HolderTicket } from './holder-ticket.ts';
import { shownShortCode } from '../domain/short-codes.ts';

/** Which wallets the holder page offers; each link only when that wallet is configured. */
export interface WalletLinks {
  /** Whether `/t/<holder token>/pass.pkpass` answers (Apple Wallet is configured). */
  appleWallet: boolean;
  /** The ticket's "Add to Google Wallet" address, when Google Wallet is configured. */
  googleSaveUrl?: (ticket: HolderTicket) => Promise<string>;
}

/** No wallet: the page offers the PDF only. */
export const NO_WALLETS: WalletLinks = { appleWallet: false };

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The page's only style; the CSP allows it by its hash, and nothing else. */
const STYLE = `
body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#111;background:#f4f4f5}
main{box-sizing:border-box;max-width:32rem;margin:0 auto;padding:1rem;background:#fff;min-height:100vh}
h1{font-size:1.5rem;margin:0 0 .25rem}
dl{margin:1rem 0}dt{font-weight:600;margin-top:.5rem}dd{margin:0}
.status{font-size:1.25rem;font-weight:700;padding:.5rem .75rem;border-radius:.5rem;display:inline-block}
.valid{background:#dcfce7;color:#14532d}.used{background:#e5e7eb;color:#1f2937}.revoked,.expired{background:#fee2e2;color:#7f1d1d}
.qr{display:block;width:100%;max-width:20rem;height:auto;margin:1rem auto}
code{display:block;font-size:.75rem;overflow-wrap:anywhere;word-break:break-all;background:#f4f4f5;padding:.5rem}
ul.links{list-style:none;padding:0}ul.links li{margin:.5rem 0}
ul.links a{display:block;padding:.75rem;border:2px solid #1d4ed8;border-radius:.5rem;color:#1d4ed8;text-align:center;font-weight:600;text-decoration:none}
`.trim();

/** The holder page's headers: a CSP allowing its one style only, no indexing, no shared caching. */
export const HOLDER_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; ` +
    "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-robots-tag': 'noindex, nofollow',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
};

/** A whole page around `body`, in English, never indexed (`head`: more of its head). */
function document(title: string, body: string, head = ''): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    head +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<meta name="robots" content="noindex, nofollow">' +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`
  );
}

/** The CSS class of a status's words. */
const statusClass = (status: string) => status.split(' ')[0]!.toLowerCase();

/**
 * The holder page: the event, the holder, the rules in words, the status, the QR code (`qrSvg`, its SVG
 * image; null for a revoked ticket) and the links.
 */
export async function holderPage(
  holder: HolderTicket,
  qrSvg: string | null,
  links: { pdf: string; applePass: string },
  wallets: WalletLinks,
): Promise<string> {
  const { words } = holder;
  const item = (term: string, value: string) => `<dt>${escapeHtml(term)}</dt><dd>${escapeHtml(value)}</dd>`;
  const validity = words.validity.map((line) => `<li>${escapeHtml(line)}</li>`).join('');
  const code =
    qrSvg === null || holder.qrToken === null
      ? '<p>This ticket was revoked: it admits nobody, and has no QR code.</p>'
      : `${qrSvg}<p>Ticket code: <strong class="short-code">${escapeHtml(shownShortCode(holder.ticket.short_code))}</strong></p>` +
        `<p>If the code cannot be scanned, the ticket token is:</p><code>${escapeHtml(holder.qrToken)}</code>`;
  const link = (href: string, text: string) => `<li><a href="${escapeHtml(href)}">${escapeHtml(text)}</a></li>`;
  // A save link that cannot be made now (the wallet's key unreadable) leaves the rest of the page as it is.
  const google =
    wallets.googleSaveUrl && holder.qrToken !== null ? await wallets.googleSaveUrl(holder).catch(() => null) : null;
  const body =
    `<h1>${escapeHtml(words.event)}</h1><p>${escapeHtml(words.when)}</p>` +
    `<p class="status ${statusClass(words.status)}">${escapeHtml(words.status)}</p>` +
    `<dl>${item('Holder', words.holder)}${item('Ticket type', words.ticketType)}</dl>` +
    `<h2>When it admits</h2><ul>${validity}</ul>` +
    code +
    '<ul class="links">' +
    (wallets.appleWallet ? link(links.applePass, 'Add to Apple Wallet') : '') +
    (google === null ? '' : link(google, 'Add to Google Wallet')) +
    link(links.pdf, 'Download PDF') +
    '</ul>';
  return document(`${words.event}: ticket of ${words.holder}`, body);
}

/** The page for a holder link that names no ticket. */
export function unknownTicketPage(): string {
  return document(
    'Ticket not found',
    '<h1>Ticket not found</h1><p>No ticket has this link. Check that the whole link was copied from ' +
      'your email, or ask the organizer to send your ticket again.</p>',
  );
}

/**
 * The page while the threads that draw QR codes are all busy (a 503 with `Retry-After`): it loads
 * itself again after those seconds, so a holder at the doors sees their ticket a moment later.
 */
export function busyPage(retryAfterSeconds: number): string {
  return document(
    'One moment',
    '<h1>One moment</h1><p>Many tickets are being shown right now. This page loads again by itself in a ' +
      'moment; if it does not, reload it.</p>',
    `<meta http-equiv="refresh" content="${retryAfterSeconds}">`,
  );
}
