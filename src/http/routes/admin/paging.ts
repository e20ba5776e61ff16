import { invalidRequest } from '../../../domain/errors.ts';

/** Reads `limit` (1 to 1000, default 100) and `cursor` of a list route. */
export function pageParams(query: { limit?: string; cursor?: string }): { limit: number; cursor: string | null } {
  const limit = query.limit === undefined ? 100 : Number(query.limit);
  if (limit < 1 || limit > 1000)
    throw invalidRequest('limit must be from 1 to 1000', [{ field: 'limit', problem: 'must be from 1 to 1000' }]);
  return { limit, cursor: query.cursor ?? null };
}
