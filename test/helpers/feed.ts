import assert from 'node:assert/strict';
import type { App } from '../../src/http/context.ts';

/** GET the changes feed with a scanner's key. */
export function getChanges(app: App, apiKey: string, eid: string, query = '') {
  return app.inject({
    url: `/api/v1/events/${eid}/changes${query}`,
    headers: { authorization: `Bearer ${apiKey}` },
  });
}

/** Follows next_cursor from the start (or `after`) until has_more is false; every change seen, in order. */
export async function followFeed(app: App, apiKey: string, eid: string, limit = 1000, after?: string) {
  const seen: Record<string, unknown>[] = [];
  let cursor = after;
  for (;;) {
    const res = await getChanges(app, apiKey, eid, `?limit=${limit}${cursor ? `&after=${cursor}` : ''}`);
    assert.equal(res.statusCode, 200, res.body);
    const page = res.json() as { changes: Record<string, unknown>[]; next_cursor: string; has_more: boolean };
    seen.push(...page.changes);
    cursor = page.next_cursor;
    if (!page.has_more) return { seen, cursor };
  }
}
