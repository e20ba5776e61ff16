/**
 * Standard Webhooks signatures (standardwebhooks.com): `v1,<base64 HMAC-SHA256>` of
 * `<webhook-id>.<webhook-timestamp>.<body>`, keyed by the base64-decoded part of the secret after
 * `whsec_`. Any receiver checks them with the `standardwebhooks` package (or svix).
 */
import { createHmac, randomBytes } from 'node:crypto';

/** What every endpoint secret starts with. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
const PREFIX = WEBHOOK_SECRET_PREFIX;

/** A new endpoint secret: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/** One `v1,…` signature of a message attempt. */
export function signature(secret: string, messageId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  const mac = createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The `webhook-signature` header: one signature per secret (two during a rotation), space-separated. */
export function signatureHeader(secrets: readonly string[], messageId: string, timestamp: number, body: string) {
  return secrets.map((secret) => signature(secret, messageId, timestamp, body)).join(' ');
}
