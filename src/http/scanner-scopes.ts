import type { FastifyInstance, onRequestAsyncHookHandler, RouteOptions } from 'fastify';
import { checkScannerScope } from '../domain/scanner-scope.ts';
import { scannerKeyOf } from './auth.ts';

/**
 * What each scanner operation (by its OpenAPI `operationId`) acts on, read by one hook as the admin
 * side's ROUTE_ACTIONS are:
 * - `event`: the path's event, judged after authentication and before the body or query is read;
 * - `search`: that, and finding holders by name (`scope.allow_search`);
 * - `ticket`: the event of the path's ticket, judged by the route once it has read the ticket;
 * - `scans`: the event, scanner and gate of each scan the body carries, judged by the domain for each
 *   scan (`checkScannerScope`), where a refused scan is also written to the scan log;
 * - `public`: no key (enrolment).
 * A `/api/v1` route missing here stops the issuer at start.
 */
export const SCANNER_ROUTE_SCOPES: Record<string, 'event' | 'search' | 'ticket' | 'scans' | 'public'> = {
  enrollScanner: 'public',
  checkInTicket: 'scans',
  checkOutTicket: 'scans',
  annulCheckIn: 'scans',
  uploadScans: 'scans',
  getTicketStatus: 'ticket',
  listChanges: 'event',
  listScannerGates: 'event',
  getScannerRules: 'event',
  findHolders: 'search',
  getTicketGroup: 'event',
  getTicketByCode: 'event',
  getRoster: 'search',
  listShortCodes: 'event',
};

const SCANNER_PATH = /^\/api\/v1\//;

/** The path's event (and the search permission), after the route's own hooks (its authentication). */
const pathScope =
  (search: boolean): onRequestAsyncHookHandler =>
  async (request) => {
    const eid = (request.params as { eid?: string }).eid ?? '';
    checkScannerScope(scannerKeyOf(request), { eid, ...(search ? { search } : {}) });
  };

/** onRoute, for every route: a scanner route gets its scope's hook; one with no scope stops the start. */
export function requireScannerScope(this: FastifyInstance, route: RouteOptions): void {
  if (!SCANNER_PATH.test(route.url)) return;
  const operationId = (route.schema as { operationId?: string } | undefined)?.operationId;
  if (operationId === undefined || !Object.hasOwn(SCANNER_ROUTE_SCOPES, operationId)) {
    throw new Error(
      `${String(route.method)} ${route.url}: operationId ${operationId ?? '(none)'} has no scope in SCANNER_ROUTE_SCOPES`,
    );
  }
  const scope = SCANNER_ROUTE_SCOPES[operationId]!;
  if (scope !== 'event' && scope !== 'search') return;
  if (!route.url.includes('/:eid')) throw new Error(`${String(route.method)} ${route.url} names no event in its path`);
  const own = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
  route.onRequest = [...own, pathScope(scope === 'search')];
}
