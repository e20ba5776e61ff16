/**
 * Apple Wallet for the issuer: a ticket's pass as it stands now, built on the pass pool, and the checks
 * of the PassKit web service (the pass type, a pass's authentication token).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { AppleSettings } from '../../config-apple.ts';
import type { Store } from '../../store/store.ts';
import {
  type PassContent,
  type PassIssuer,
  buildPass,
  passAuthenticationToken,
  passAuthKey,
  passJson,
} from './pass.ts';
import { PassPool } from './pass-pool.ts';

/** A pass ready to send: the `.pkpass` and when it last changed (whole seconds: `Last-Modified`). */
export interface ServedPass {
  pkpass: Buffer;
  changedAt: string;
}

/** Signed passes kept by the digest of their pass.json: a holder opening the link again costs no signature. */
const CACHE_ENTRIES = 256;

export class AppleWallet {
  private readonly issuer: PassIssuer;
  private readonly pool: PassPool;
  private readonly cache = new Map<string, Buffer>();

  constructor(
    readonly settings: AppleSettings,
    private readonly store: Store,
    options: { baseUrl: string; issuerName: string; keyEncryptionKey: Buffer; threads?: number },
  ) {
    this.issuer = {
      apple: settings,
      baseUrl: options.baseUrl,
      issuerName: options.issuerName,
      authKey: passAuthKey(options.keyEncryptionKey),
    };
    const threads = options.threads ?? Math.min(4, Math.max(1, availableParallelism() - 1));
    this.pool = new PassPool(threads, {
      wwdr: settings.wwdr,
      signerCert: settings.signerCert,
      signerKey: settings.signerKey,
    });
  }

  /** Whether `token` (the `ApplePass` authorization) is the authentication token of the pass `serial`. */
  authenticates(serial: string, token: string): boolean {
    const expected = Buffer.from(passAuthenticationToken(this.issuer.authKey, serial));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** What the ticket's pass shows now; null for an unknown ticket. */
  async content(tid: string): Promise<{ content: PassContent; changedAt: string } | null> {
    const ticket = await this.store.tickets.getTicket(tid);
    if (ticket === null) return null;
    const [event, changedAt] = await Promise.all([
      this.store.events.getEvent(ticket.eid),
      this.store.applePasses.applePassChangedAt(tid),
    ]);
    if (event === null || changedAt === null) return null;
    const content: PassContent = {
      tid,
      holderName: ticket.holder_name,
      ticketType: ticket.ticket_type,
      ticketToken: ticket.ticket_token,
      revoked: ticket.revoked_at !== null,
      eventName: event.name,
      eventDate: event.event_date,
      timezone: event.timezone,
    };
    return { content, changedAt };
  }

  /** The ticket's pass as it stands now; null for an unknown ticket. 503 UNAVAILABLE when the pool is busy. */
  async pass(tid: string): Promise<ServedPass | null> {
    const found = await this.content(tid);
    if (found === null) return null;
    const json = JSON.stringify(passJson(found.content, this.issuer));
    const key = createHash('sha256').update(json).digest('base64url');
    let pkpass = this.cache.get(key);
    if (pkpass === undefined) {
      pkpass = await buildPass(this.pool, found.content, this.issuer);
      if (this.cache.size >= CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(key, pkpass);
    }
    return { pkpass, changedAt: found.changedAt };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
