/** One message as the worker sends it: signed with the endpoint's secrets, posted, and what came of it. */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import { unsealWebhookSecret } from '../domain/webhooks.ts';
import type { ClaimedMessage, WebhookRecord } from '../store/webhook-records.ts';
import { messageBody } from './attempt.ts';
import type { AttemptOutcome, Transport } from './deliver.ts';
import { signatureHeader } from './signing.ts';

/** What sending needs of the worker's options. */
export interface SendOptions {
  keyEncryptionKey: Buffer;
  settings: Config['webhooks'];
  log: FastifyBaseLogger;
}

/** Signs and posts one message, started at `startedAt`; an attempt that could not be made is an outcome too. */
export async function sendSigned(
  transport: Transport,
  endpoint: WebhookRecord,
  message: ClaimedMessage,
  startedAt: Date,
  o: SendOptions,
): Promise<AttemptOutcome> {
  const timestamp = Math.floor(startedAt.getTime() / 1000);
  const body = messageBody(message);
  let outcome: AttemptOutcome;
  try {
    const secrets = signingSecrets(o.keyEncryptionKey, endpoint, startedAt);
    outcome = await transport.post(
      endpoint.url,
      body,
      {
        'webhook-id': message.message_id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(secrets, message.message_id, timestamp, body),
      },
      o.settings.timeoutSeconds * 1000,
    );
  } catch (error) {
    o.log.warn({ err: error, webhook_id: endpoint.webhook_id }, 'webhook delivery: attempt could not be made');
    outcome = { status_code: null, error: 'the attempt could not be made', duration_ms: 0, retry_after_s: null };
  }
  return outcome;
}

/** The endpoint's current secret, and the previous one while it is still honoured after a rotation. */
function signingSecrets(keyEncryptionKey: Buffer, endpoint: WebhookRecord, now: Date): string[] {
  const secrets = [unsealWebhookSecret(keyEncryptionKey, endpoint.webhook_id, endpoint.secret_enc)];
  if (
    endpoint.previous_secret_enc !== null &&
    endpoint.previous_secret_until !== null &&
    endpoint.previous_secret_until > now.toISOString()
  ) {
    secrets.push(unsealWebhookSecret(keyEncryptionKey, endpoint.webhook_id, endpoint.previous_secret_enc));
  }
  return secrets;
}
