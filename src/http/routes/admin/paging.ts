import { invalidRequest } from '../../../domain/errors.ts';

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';

/** The shape of each list's cursor: the id (or scan number) of the last item of the previous page. */
export const CURSOR = {
  event: new RegExp(`^evt_${ULID}$`),
  ticket: new RegExp(`^${ULID}$`),
  scanner: new RegExp(`^sck_${ULID}$`),
  webhook: new RegExp(`^whk_${ULID}$`),
  scan: /^\d{1,15}$/,
} as const;

/**
 * Reads `limit` (1 to 1000, default 100) and `cursor` of a list route. A cursor this list could not
 * have given is 400 on every list (never a silent first page).
 */
export function pageParams(
  query: { limit?: string; cursor?: string },
  cursorShape: RegExp,
): { limit: number; cursor: string | null } {
  const limit = query.limit === undefined ? 100 : Number(query.limit);
  if (limit < 1 || limit > 1000)
    throw invalidRequest('limit must be from 1 to 1000', [{ field: 'limit', problem: 'must be from 1 to 1000' }]);
  const cursor = query.cursor ?? null;
  if (cursor !== null && !cursorShape.test(cursor)) {
    throw invalidRequest('cursor is not one this list gave; pass next_cursor back as it was', [
      { field: 'cursor', problem: 'must be the next_cursor of a previous page, as it was given' },
    ]);
  }
  return { limit, cursor };
}

/** The one shape of every page: the items under their name, `next_cursor` (null at the end) and `has_more`. */
export function pageAnswer<K extends string, T>(name: K, items: T[], nextCursor: string | null) {
  return { [name]: items, next_cursor: nextCursor, has_more: nextCursor !== null } as Record<K, T[]> & {
    next_cursor: string | null;
    has_more: boolean;
  };
}
