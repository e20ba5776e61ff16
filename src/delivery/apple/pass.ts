/**
 * An Apple Wallet pass for one ticket (`.pkpass`, as Apple's PassKit documents it): `pass.json`, the
 * icons, `manifest.json` (the SHA-1 of every other file) and `signature` (PKCS #7, detached, over the
 * manifest, by the pass certificate with the WWDR certificate included), zipped by passkit-generator.
 */
import { createHmac, hkdfSync } from 'node:crypto';
import type { AppleSettings } from '../../config-apple.ts';
import { passIcons } from './icons.ts';
import type { PassPool } from './pass-pool.ts';

/** What a pass shows and carries, read from the ticket and its event. */
export interface PassContent {
  tid: string;
  holderName: string;
  ticketType: string;
  /** The current ticket token: the QR code's message. */
  ticketToken: string;
  revoked: boolean;
  eventName: string;
  /** The event's start (ISO 8601 UTC) and zone: shown as the event's local time, and the pass's relevantDate. */
  eventDate: string;
  timezone: string;
}

export interface PassIssuer {
  apple: AppleSettings;
  /** BASE_URL: the web service is at `<BASE_URL>/wallet/apple`. */
  baseUrl: string;
  /** ISSUER_NAME: the pass's organizationName. */
  issuerName: string;
  /** The key its authentication tokens are made under (see `passAuthKey`). */
  authKey: Buffer;
}

/**
 * The key of passes' authentication tokens, derived from the key-encryption key (HKDF-SHA256, its own
 * label): the same on every instance and at every start, and never the key-encryption key itself.
 */
export function passAuthKey(keyEncryptionKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', keyEncryptionKey, Buffer.alloc(0), 'apple-wallet-pass-authentication', 32));
}

/**
 * The pass's authenticationToken: HMAC-SHA256 of the tid under `passAuthKey`, base64url (43 characters).
 * The same each time the pass is built again; nobody can make it from the tid without the key.
 */
export function passAuthenticationToken(authKey: Buffer, tid: string): string {
  return createHmac('sha256', authKey).update(`apple-pass:${tid}`).digest('base64url');
}

/** The event's start in words, in its own zone, named ("Tue, 2 Jun 2026, 20:00 (Europe/Berlin)"). */
export function eventTimeInZone(instant: string, timezone: string): string {
  return (
    new Intl.DateTimeFormat('en-GB', {
      timeZone: timezone,
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
    }).format(new Date(instant)) + ` (${timezone})`
  );
}

/** The fields of `pass.json` (Apple's PassKit keys). */
export function passJson(content: PassContent, issuer: PassIssuer): Record<string, unknown> {
  return {
    formatVersion: 1,
    passTypeIdentifier: issuer.apple.passTypeId,
    teamIdentifier: issuer.apple.teamId,
    serialNumber: content.tid,
    organizationName: issuer.issuerName,
    description: `Ticket for ${content.eventName}`,
    webServiceURL: `${issuer.baseUrl}/wallet/apple`,
    authenticationToken: passAuthenticationToken(issuer.authKey, content.tid),
    relevantDate: content.eventDate,
    barcodes: [{ format: 'PKBarcodeFormatQR', message: content.ticketToken, messageEncoding: 'iso-8859-1' }],
    ...(content.revoked ? { voided: true } : {}),
    eventTicket: {
      primaryFields: [{ key: 'event', label: 'EVENT', value: content.eventName }],
      secondaryFields: [
        { key: 'holder', label: 'HOLDER', value: content.holderName },
        { key: 'type', label: 'TICKET', value: content.ticketType },
      ],
      auxiliaryFields: [{ key: 'date', label: 'DATE', value: eventTimeInZone(content.eventDate, content.timezone) }],
      backFields: [
        { key: 'ticket-id', label: 'Ticket', value: content.tid },
        ...(content.revoked ? [{ key: 'status', label: 'Status', value: 'Revoked' }] : []),
      ],
    },
  };
}

/** The signed `.pkpass` (a zip), made on the pass pool's threads. */
export function buildPass(pool: PassPool, content: PassContent, issuer: PassIssuer): Promise<Buffer> {
  return pool.build({ ...passIcons(), 'pass.json': Buffer.from(JSON.stringify(passJson(content, issuer))) });
}
