import type { Row } from './rows.ts';
import type { ChangeRecord } from './store.ts';

/** What a change carries beside its event, type, ticket and time, by type (see ChangeRecord). */
export interface ChangeExtra {
  scanner_id?: string;
  gate_id?: string | null;
  jti?: string | null;
  /** A `ticket_notes` change's notes. */
  attention?: boolean;
  checkin_text?: string | null;
  /** A `checked_out` change of an automatic exit. */
  auto?: boolean;
  /** A `checked_in` change's entry, or the entry an `annulled` change undoes. */
  idempotency_key?: string;
}

/**
 * A change row on either backend (PostgreSQL answers BIGINT positions as strings, SQLite booleans as
 * 0 or 1): the notes columns belong to a `ticket_notes` change only, `auto` to an automatic exit only,
 * `idempotency_key` to a `checked_in` or `annulled` change only.
 */
export function toChange(row: Row): ChangeRecord {
  const { attention, checkin_text, auto, idempotency_key, ...rest } = row;
  const change = { ...rest, position: Number(row.position) } as unknown as ChangeRecord;
  if (auto === true || auto === 1) return { ...change, auto: true };
  // An entry and its undo name the entry by its idempotency key (null only where none was ever kept).
  if (change.type === 'annulled' || change.type === 'checked_in')
    return { ...change, idempotency_key: (idempotency_key ?? null) as string };
  if (change.type !== 'ticket_notes') return change;
  return {
    ...change,
    attention: attention === true || attention === 1,
    checkin_text: (checkin_text ?? null) as string | null,
  };
}
