/**
 * Syncing the offline roster, after the scans went up and the feed came down: the roster's pages from
 * the kept cursor (only what changed), or, for a key the issuer refuses it to (403), the short codes'
 * digests. The refusal is remembered for that key: a device asks again only once enrolled again. A page
 * that fails is asked again at the next sync; the pages before it are kept.
 */
import type { IssuerClient } from './client.ts';
import { IssuerHttpError, isKeyRejected, ScannerError } from './errors.ts';
import { invalidAnswer } from './issuer-answers.ts';
import type { CodeLine, RosterLine } from './roster.ts';
import type { KeptRoster } from './roster-store.ts';
import { DEFAULT_RETRY_POLICY, realTimer, type RetryPolicy, type Timer, withRetry } from './retry.ts';

/** Lines asked per page: the issuer's largest. */
export const ROSTER_PAGE = 1000;

/** What a roster sync needs. */
export interface RosterSyncContext {
  client: IssuerClient;
  roster: KeptRoster;
  /** The event's base on the issuer: `${iss}/api/v1/events/${eid}`. */
  eventUrl: string;
  apiKeyId: string;
  policy?: RetryPolicy;
  timer?: Timer;
}

/** What a roster sync did: lines pulled, and why it stopped short (null: it reached the end). */
export interface RosterSyncResult {
  lines: number;
  problem: ScannerError | null;
}

/** The event's base URL on the issuer, under which the roster, codes and group routes live. */
export const eventUrl = (iss: string, eid: string): string =>
  `${iss.replace(/\/+$/, '')}/api/v1/events/${encodeURIComponent(eid)}`;

interface Page<T> {
  lines: T[];
  next_cursor: string;
  has_more: boolean;
}

/** Where a route resumes: the kept cursor if it is that route's, else its start. */
const cursorOf = (ctx: RosterSyncContext, route: 'roster' | 'codes'): string | null =>
  ctx.roster.kind === route ? ctx.roster.cursor : null;

/** A page of the roster or the codes, checked to have its lines and cursor. */
async function readPage<T>(ctx: RosterSyncContext, route: 'roster' | 'codes'): Promise<Page<T>> {
  const query = new URLSearchParams({ limit: String(ROSTER_PAGE) });
  const cursor = cursorOf(ctx, route);
  if (cursor !== null) query.set('cursor', cursor);
  const url = `${ctx.eventUrl}/${route}?${query.toString()}`;
  const body = (await withRetry(
    () => ctx.client.read(url),
    ctx.policy ?? DEFAULT_RETRY_POLICY,
    ctx.timer ?? realTimer,
  )) as {
    tickets?: unknown;
    codes?: unknown;
    next_cursor?: unknown;
    has_more?: unknown;
  };
  const lines = route === 'roster' ? body.tickets : body.codes;
  if (!Array.isArray(lines) || typeof body.next_cursor !== 'string' || typeof body.has_more !== 'boolean') {
    throw invalidAnswer(`${route} page without its lines, next_cursor or has_more`);
  }
  return { lines: lines as T[], next_cursor: body.next_cursor, has_more: body.has_more };
}

/** Follows one route to its end, keeping each page as it comes. */
async function follow<T>(
  ctx: RosterSyncContext,
  route: 'roster' | 'codes',
  keep: (lines: T[], cursor: string) => Promise<void>,
): Promise<number> {
  let count = 0;
  for (;;) {
    const before = cursorOf(ctx, route);
    const page = await readPage<T>(ctx, route);
    if (page.lines.length > 0 || page.next_cursor !== before) await keep(page.lines, page.next_cursor);
    count += page.lines.length;
    // A page that neither brings lines nor moves the cursor would loop for ever.
    if (!page.has_more || (page.lines.length === 0 && page.next_cursor === before)) return count;
  }
}

const forbidden = (error: unknown) => error instanceof IssuerHttpError && error.status === 403;

/**
 * Syncs the roster (or the digests) to its end. A rejected key (401) throws; any other failure is
 * the result's `problem`, and the next sync goes on from the last page kept.
 */
export async function syncRoster(ctx: RosterSyncContext): Promise<RosterSyncResult> {
  const { roster } = ctx;
  let lines = 0;
  try {
    if (roster.refusedKey !== ctx.apiKeyId) {
      try {
        lines += await follow<RosterLine>(ctx, 'roster', (page, cursor) => roster.saveTickets(page, cursor));
        return { lines, problem: null };
      } catch (error) {
        if (!forbidden(error)) throw error;
        await roster.refuse(ctx.apiKeyId);
      }
    }
    // Digests kept without their type (an older issuer's): read the list again from its start, once.
    if (roster.kind === 'codes' && roster.untyped > 0 && !roster.reread) await roster.rereadCodes();
    lines += await follow<CodeLine>(ctx, 'codes', (page, cursor) => roster.saveCodes(page, cursor));
    return { lines, problem: null };
  } catch (error) {
    if (isKeyRejected(error) || !(error instanceof ScannerError)) throw error;
    return { lines, problem: error };
  }
}
