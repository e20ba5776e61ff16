import type { ApiKeyRecord, Store } from '../store/store.ts';
import { instantField } from './events.ts';

/** The largest offset kept, either way (ten years): a clock further off is kept as this far off. */
const MAX_OFFSET_S = 10 * 365 * 86_400;

/**
 * A scanner's clock offset from an upload's `sent_at` (the device's clock when it sent): its clock
 * minus the issuer's at receipt, in whole seconds, positive when the device runs fast. The time the
 * upload spent on the way counts against the device (a few hundred milliseconds: rounded away). A
 * `sent_at` that is no ISO 8601 UTC instant is the upload's 400, naming it.
 */
export function clockOffsetSeconds(sentAt: string, receivedAt: Date): number {
  const sent = new Date(instantField('sent_at', sentAt)).getTime();
  const offset = Math.round((sent - receivedAt.getTime()) / 1000);
  return Math.max(-MAX_OFFSET_S, Math.min(MAX_OFFSET_S, offset));
}

/** Keeps the scanner's last measured offset (the last upload that said when it was sent). */
export async function recordClockOffset(store: Store, key: ApiKeyRecord, offsetSeconds: number): Promise<void> {
  await store.scanners.recordClockOffset(key.api_key_id, offsetSeconds);
}
