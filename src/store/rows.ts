import type { Page, SigningKeyRecord } from './store.ts';

/** A row as a driver returns it. */
export type Row = Record<string, unknown>;

/** A signing-key row: its public JWK is kept as JSON text on every backend. */
export const toSigningKey = (row: Row): SigningKeyRecord => ({
  ...(row as unknown as SigningKeyRecord),
  public_jwk: JSON.parse(row.public_jwk as string) as Record<string, string>,
});

/** A page from `limit + 1` rows: the extra row only tells that there is more. */
export function page<T>(rows: T[], limit: number, cursorOf: (row: T) => string): Page<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next_cursor: rows.length > limit && last ? cursorOf(last) : null };
}
