/**
 * Google Wallet's save link: a JWT signed by the service account's key that carries the event as an
 * event-ticket class and the ticket as an object of it. Google creates both when the holder saves it.
 */
import { createHash, createPrivateKey, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import type { GoogleWalletSettings } from '../config-google.ts';
import type { EventRecord } from '../store/event-records.ts';
import type { TicketRecord } from '../store/ticket-records.ts';

/** Where a save link points: Google's page that adds the JWT's passes to the holder's wallet. */
export const GOOGLE_SAVE_URL = 'https://pay.google.com/gp/v/save/';
/** The language of the localized strings of a class and an object. */
const LANGUAGE = 'en';
/** How long a signed link is handed out again for the same ticket as it stands (a signature costs about 1 ms). */
const LINK_REUSE_MS = 10 * 60_000;
const LINK_CACHE_SIZE = 2_000;

/**
 * The part of a Google Wallet id after `<issuer id>.`: Google allows only letters, digits, `.`, `_` and
 * `-`. The issuer's ids (ULIDs, `evt_` + ULID) already fit and are kept as they are; any other id is
 * written `u.` + its base64url, which cannot be mistaken for a kept id (those never contain a dot).
 */
export function walletIdSuffix(id: string): string {
  return /^[A-Za-z0-9_-]+$/.test(id) ? id : `u.${Buffer.from(id, 'utf8').toString('base64url')}`;
}

/** The object id of a ticket: `<issuer id>.<tid>`. */
export const walletObjectId = (issuerId: string, tid: string): string => `${issuerId}.${walletIdSuffix(tid)}`;
/** The class id of an event: `<issuer id>.<eid>`. */
export const walletClassId = (issuerId: string, eid: string): string => `${issuerId}.${walletIdSuffix(eid)}`;

const localized = (value: string) => ({ defaultValue: { language: LANGUAGE, value } });

/** The event as a Google Wallet event-ticket class. */
export function eventTicketClass(settings: GoogleWalletSettings, event: EventRecord, issuerName: string) {
  return {
    id: walletClassId(settings.issuerId, event.eid),
    issuerName,
    eventName: localized(event.name),
    eventId: walletIdSuffix(event.eid).slice(0, 64),
    dateTime: { start: event.event_date, ...(event.ends_at === null ? {} : { end: event.ends_at }) },
    reviewStatus: 'UNDER_REVIEW',
  };
}

/** The ticket as a Google Wallet event-ticket object: its current token as the QR code. */
export function eventTicketObject(settings: GoogleWalletSettings, ticket: TicketRecord) {
  const interval =
    ticket.valid_from === null && ticket.expires_at === null
      ? {}
      : {
          validTimeInterval: {
            ...(ticket.valid_from === null ? {} : { start: { date: ticket.valid_from } }),
            ...(ticket.expires_at === null ? {} : { end: { date: ticket.expires_at } }),
          },
        };
  return {
    id: walletObjectId(settings.issuerId, ticket.tid),
    classId: walletClassId(settings.issuerId, ticket.eid),
    state: 'ACTIVE',
    barcode: { type: 'QR_CODE', value: ticket.ticket_token },
    ticketHolderName: ticket.holder_name,
    ticketType: localized(ticket.ticket_type),
    ...interval,
  };
}

/** What a save link is made of. */
export interface SaveLinkInput {
  ticket: TicketRecord;
  event: EventRecord;
  /** BASE_URL: the one origin the link's button may be shown on. */
  baseUrl: string;
  /** ISSUER_NAME: shown as the class's issuer. */
  issuerName: string;
  /** The clock's instant, for `iat`. */
  now: Date;
}

/** Makes the **Add to Google Wallet** links of one issuer account: signed once, reused for a while. */
export class GoogleWalletLinks {
  private readonly key: KeyObject;
  private readonly made = new Map<string, { link: string; at: number }>();

  constructor(private readonly settings: GoogleWalletSettings) {
    this.key = createPrivateKey(settings.privateKey);
  }

  /** The save link of a ticket; null for a revoked ticket, which gets no link. */
  async saveLink(input: SaveLinkInput): Promise<string | null> {
    if (input.ticket.revoked_at !== null) return null;
    const payload = {
      eventTicketClasses: [eventTicketClass(this.settings, input.event, input.issuerName)],
      eventTicketObjects: [eventTicketObject(this.settings, input.ticket)],
    };
    const content = JSON.stringify([payload, input.baseUrl]);
    const cacheKey = createHash('sha256').update(content).digest('base64url');
    const now = input.now.getTime();
    const kept = this.made.get(cacheKey);
    if (kept !== undefined && now - kept.at >= 0 && now - kept.at < LINK_REUSE_MS) return kept.link;
    const jwt = await new SignJWT({ typ: 'savetowallet', origins: [input.baseUrl], payload })
      .setProtectedHeader({
        alg: 'RS256',
        typ: 'JWT',
        ...(this.settings.privateKeyId === null ? {} : { kid: this.settings.privateKeyId }),
      })
      .setIssuer(this.settings.clientEmail)
      .setAudience('google')
      .setIssuedAt(Math.floor(now / 1000))
      .sign(this.key);
    const link = GOOGLE_SAVE_URL + jwt;
    if (this.made.size >= LINK_CACHE_SIZE) this.made.delete(this.made.keys().next().value!);
    this.made.set(cacheKey, { link, at: now });
    return link;
  }
}
