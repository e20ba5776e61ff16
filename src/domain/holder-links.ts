import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto';

/** Crockford's base32, the alphabet of ULIDs (ticket ids). */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const ULID_SHAPE = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{22}$/;
/** What the holder-link key is derived for: a key of its own, never the key-encryption key itself. */
const KEY_INFO = 'ticket-issuer holder link v1';

/** A ULID's 128 bits (26 characters of 5 bits, the first carrying 3). */
function ulidBytes(tid: string): Buffer | null {
  if (!ULID_SHAPE.test(tid)) return null;
  let value = 0n;
  for (const char of tid) value = (value << 5n) | BigInt(CROCKFORD.indexOf(char));
  return Buffer.from(value.toString(16).padStart(32, '0'), 'hex');
}

/** The ULID of 128 bits. */
function ulidOf(bytes: Buffer): string {
  let value = BigInt(`0x${bytes.toString('hex')}`);
  let text = '';
  for (let i = 0; i < 26; i++) {
    text = CROCKFORD[Number(value & 31n)]! + text;
    value >>= 5n;
  }
  return text;
}

/**
 * Holder links: `<BASE_URL>/t/<holder token>`, the page where a holder sees their ticket. The token is
 * the ticket id (a ULID, 128 bits) encrypted as one AES-256 block under a key derived from the
 * key-encryption key: 22 base64url characters that look random to anyone without that key, neither
 * the tid nor the ticket token, and answerable for every ticket without storing anything (a stored
 * token would be a bearer credential at rest, and a hash of one could not be shown again). The link
 * opens the ticket's id back from the token; a token that does not open to a known ticket is a 404.
 */
export class HolderLinks {
  private readonly key: Buffer;

  constructor(
    keyEncryptionKey: Buffer,
    private readonly baseUrl: string,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', keyEncryptionKey, Buffer.alloc(0), KEY_INFO, 32));
  }

  /** The ticket's holder token, or null for a tid that is not a ULID (the issuer makes no other). */
  token(tid: string): string | null {
    const bytes = ulidBytes(tid);
    if (bytes === null) return null;
    const cipher = createCipheriv('aes-256-ecb', this.key, null).setAutoPadding(false);
    return Buffer.concat([cipher.update(bytes), cipher.final()]).toString('base64url');
  }

  /** The ticket's holder page, `<BASE_URL>/t/<holder token>`, or null when it has no token. */
  url(tid: string): string | null {
    const token = this.token(tid);
    return token === null ? null : `${this.baseUrl}/t/${token}`;
  }

  /** The tid a holder token stands for, or null for a string that is not a holder token. */
  tidOf(token: string): string | null {
    if (!TOKEN_SHAPE.test(token)) return null;
    const bytes = Buffer.from(token, 'base64url');
    // Only the canonical spelling: the last character's unused bits must be zero.
    if (bytes.length !== 16 || bytes.toString('base64url') !== token) return null;
    const decipher = createDecipheriv('aes-256-ecb', this.key, null).setAutoPadding(false);
    const plain = Buffer.concat([decipher.update(bytes), decipher.final()]);
    // Every 128 bits spell a ULID: whether it is a ticket's, only the store can say.
    return ulidOf(plain);
  }
}
