import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
const VERSION = 'v1';

/** Parses a 256-bit key-encryption key given as 64 hex digits or 32 bytes in base64/base64url. */
export function parseKeyEncryptionKey(text: string): Buffer | null {
  const trimmed = text.trim();
  const bytes = /^[0-9a-f]{64}$/i.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length === 32 ? bytes : null;
}

/** A fresh key-encryption key in the text form `parseKeyEncryptionKey` reads. */
export function newKeyEncryptionKey(): string {
  return randomBytes(32).toString('base64url');
}

/** Seals `plain` with AES-256-GCM; `label` is bound as associated data (the key id). */
export function seal(kek: Buffer, plain: Buffer, label: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv(ALGORITHM, kek, iv);
  cipher.setAAD(Buffer.from(label, 'utf8'));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), body]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/** Opens what `seal` produced with the same key and label; throws if either differs. */
export function unseal(kek: Buffer, sealed: string, label: string): Buffer {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('unknown sealed-key format');
  const decipher = createDecipheriv(ALGORITHM, kek, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(label, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
}
