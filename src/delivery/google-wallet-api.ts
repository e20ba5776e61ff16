/**
 * The Google Wallet REST API, for the one change the issuer makes after a pass is saved: a patch of
 * the ticket's object (INACTIVE on revoke, the new token's barcode on reissue).
 */
import type { GoogleWalletSettings } from '../config-google.ts';
import { GoogleAccessTokens, TokenError, type TokenOptions } from './google-token.ts';
import { walletObjectId } from './google-wallet.ts';
import { sendRequest, type ServiceReply } from './https-request.ts';

/** What changes in a ticket's object. */
export type ObjectPatch = { state: 'INACTIVE' } | { barcode: { type: 'QR_CODE'; value: string } };

/** The patch a revocation makes. */
export const revokedPatch = (): ObjectPatch => ({ state: 'INACTIVE' });
/** The patch a reissue makes: the new token as the QR code. */
export const reissuedPatch = (ticketToken: string): ObjectPatch => ({
  barcode: { type: 'QR_CODE', value: ticketToken },
});

/**
 * How a patch ended. `done`: applied, or nothing to patch (`saved: false`: the holder never saved the
 * pass, Google answers 404); `retry`: try again later (no answer, 429, 5xx, no token), with the
 * service's `Retry-After` in seconds when it gave one; `failed`: refused for good, with the reply.
 */
export type PatchOutcome =
  | { kind: 'done'; saved: boolean; status: number }
  | { kind: 'retry'; status: number | null; error: string; retryAfterS: number | null }
  | { kind: 'failed'; status: number; error: string };

/** The Wallet API of one issuer account. */
export class GoogleWalletApi {
  readonly tokens: GoogleAccessTokens;

  constructor(
    private readonly settings: GoogleWalletSettings,
    private readonly options: TokenOptions,
  ) {
    this.tokens = new GoogleAccessTokens(settings, options);
  }

  /** Patches the ticket's object; a token the API refuses (401) is renewed once and the patch sent again. */
  async patchObject(tid: string, patch: ObjectPatch): Promise<PatchOutcome> {
    let token: string;
    try {
      token = await this.tokens.token();
      let reply = await this.send(tid, patch, token);
      if (reply.status === 401) {
        token = await this.tokens.renew(token);
        reply = await this.send(tid, patch, token);
      }
      return outcome(reply);
    } catch (error) {
      const status = error instanceof TokenError ? error.status : null;
      return { kind: 'retry', status, error: short((error as Error).message), retryAfterS: null };
    }
  }

  private send(tid: string, patch: ObjectPatch, token: string): Promise<ServiceReply> {
    const id = encodeURIComponent(walletObjectId(this.settings.issuerId, tid));
    return sendRequest({
      method: 'PATCH',
      url: `${this.settings.apiUrl}/eventTicketObject/${id}`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(patch),
      ca: this.options.ca,
      timeoutMs: this.options.timeoutMs,
    });
  }
}

/** Sorts an answer of the API into the three outcomes. */
function outcome(reply: ServiceReply): PatchOutcome {
  const { status } = reply;
  if (status >= 200 && status < 300) return { kind: 'done', saved: true, status };
  if (status === 404) return { kind: 'done', saved: false, status };
  const error = short(`${status} ${reply.body}`);
  if (status === 429 || status >= 500 || status === 401) {
    return { kind: 'retry', status, error, retryAfterS: retryAfter(reply.headers['retry-after']) };
  }
  return { kind: 'failed', status, error };
}

/** A `Retry-After` in seconds (a number or an HTTP date), or null. */
function retryAfter(value: string | string[] | undefined): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return null;
  if (/^\d{1,9}$/.test(text.trim())) return Number(text.trim());
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

const short = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 500);
