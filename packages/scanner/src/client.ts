import {
  type AnnulRequestBody,
  CHECK_IN_OUTCOMES,
  CHECK_OUT_STATUSES,
  type ChangesPage,
  type CheckOutAnswer,
  type CheckInAnswer,
  type CheckInRequestBody,
  type DiscoveryDocument,
  type EnrollAnswer,
  type GatesAnswer,
  type HolderSearchAnswer,
  type RulesAnswer,
  type ScanUploadAnnul,
  type ScanUploadItem,
  type ScanUploadResult,
} from '@ticket-issuer/protocol';
import { IssuerHttpError, IssuerNetworkError, ScannerError } from './errors.ts';
import { isHolderSearchAnswer } from './holder-search.ts';
import { checkRules, isGateRule } from './rules.ts';
import { checkDiscovery } from './state.ts';
import { fetchTransport, type HttpRequest, type Transport } from './transport.ts';

/** Connection failures that happen before a request leaves the device: it certainly did not arrive. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

type Coded = { code?: unknown; errors?: { code?: unknown }[] };

/**
 * The socket error codes of a failed request: on the error itself (node:http), or on its `cause`
 * (fetch), and on each error of an AggregateError (a connection tried on several addresses).
 */
function causeCodes(error: unknown): string[] {
  const codesOf = (e: Coded | undefined) => [e?.code, ...(e?.errors ?? []).map((inner) => inner.code)];
  const codes = [...codesOf(error as Coded), ...codesOf((error as { cause?: Coded }).cause)];
  return codes.filter((code): code is string => typeof code === 'string');
}

/** Turns a fetch failure into a typed error that says whether the request may have arrived. */
function networkError(error: unknown, origin: string): IssuerNetworkError {
  const name = (error as { name?: unknown }).name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new IssuerNetworkError('ISSUER_TIMEOUT', `the issuer at ${origin} did not answer in time`, 'maybe', error);
  }
  const codes = causeCodes(error);
  const delivery = codes.length > 0 && codes.every((code) => NOT_SENT_CODES.has(code)) ? 'not_sent' : 'maybe';
  const why = codes[0] ?? (error instanceof Error ? error.message : 'network error');
  return new IssuerNetworkError('ISSUER_UNREACHABLE', `cannot reach the issuer at ${origin}: ${why}`, delivery, error);
}

/** Seconds from a `Retry-After` header (delta-seconds or an HTTP date), or from the envelope's details. */
function retryAfter(header: string | null, details: Record<string, unknown>): number | null {
  if (header !== null) {
    if (/^\d+$/.test(header.trim())) return Number(header.trim());
    const at = Date.parse(header);
    if (!Number.isNaN(at)) return Math.max(0, Math.ceil((at - Date.now()) / 1000));
  }
  const fromDetails = details.retry_after_seconds;
  return typeof fromDetails === 'number' && fromDetails >= 0 ? fromDetails : null;
}

/** The issuer's answer to an annul: the entry no longer counts; the ticket as it is after it. */
export interface AnnulAnswer {
  status: 'annulled';
  ticket: {
    tid: string;
    eid?: string;
    holder_name?: string;
    ticket_type?: string;
    /** The ticket's last entry that still counts; null: unused again. */
    checked_in_at: string | null;
    entries?: number;
    attention?: boolean;
    checkin_texts?: string[];
  };
}

/** Options of an IssuerClient. */
export interface IssuerClientOptions {
  /** The API key, for the scanner routes. */
  apiKey?: string;
  /** Per-request time limit in milliseconds (default 10 s). */
  timeoutMs?: number;
  /** A fetch implementation (defaults to the global one; keep-alive is undici's default). */
  fetch?: typeof fetch;
  /** How requests travel; takes precedence over `fetch` (default: `fetch`). */
  transport?: Transport;
}

/** A JSON answer: its status, its Retry-After header and its parsed body (null when not JSON). */
interface RawAnswer {
  status: number;
  retryAfter: string | null;
  body: unknown;
}

/** Talks to one issuer over a transport (fetch by default): discovery, enrolment, check-in, changes feed. */
export class IssuerClient {
  private readonly transport: Transport;

  constructor(private readonly options: IssuerClientOptions = {}) {
    this.transport = options.transport ?? fetchTransport(options.fetch);
  }

  /** GET `${iss}/.well-known/ticket-issuer.json`, checked to name the same `iss`. */
  async discovery(iss: string): Promise<DiscoveryDocument> {
    const url = `${iss.replace(/\/+$/, '')}/.well-known/ticket-issuer.json`;
    const answer = await this.request('GET', url, undefined, undefined, false);
    const body = this.expectOk(answer);
    const doc = checkDiscovery(body, (what) => invalidAnswer(`discovery document: ${what}`));
    if (doc.iss.replace(/\/+$/, '') !== iss.replace(/\/+$/, '')) {
      throw new ScannerError('ISSUER_MISMATCH', `the issuer at ${iss} calls itself ${doc.iss}`);
    }
    return doc;
  }

  /** POST the enrolment; the answer carries the API key. */
  async enroll(
    url: string,
    body: {
      token: string;
      scanner_id: string;
      scanner_name?: string;
      scanner_platform?: string;
      expected_eid?: string;
    },
  ): Promise<EnrollAnswer> {
    const answer = this.expectOk(await this.request('POST', url, body, undefined, false));
    const enrolled = answer as Partial<EnrollAnswer>;
    if (typeof enrolled.api_key !== 'string' || typeof enrolled.api_key_id !== 'string' || !enrolled.scope) {
      throw invalidAnswer('enrolment answer without api_key, api_key_id or scope');
    }
    return enrolled as EnrollAnswer;
  }

  /**
   * POST a check-in. Resolves with the outcome (200, or 400 `invalid_signature`); throws
   * IssuerHttpError for an envelope, IssuerNetworkError when there is no answer.
   */
  async checkIn(url: string, body: CheckInRequestBody, timeoutMs?: number): Promise<CheckInAnswer> {
    const answer = await this.request('POST', url, body, timeoutMs);
    const read = scanAnswerOf('check_in', answer.status, answer.body, answer.retryAfter);
    if (read instanceof IssuerHttpError) throw read;
    return read as CheckInAnswer;
  }

  /** POSTs an exit scan; its answer as `checkIn`'s (IssuerHttpError for an envelope). */
  async checkOut(url: string, body: CheckInRequestBody, timeoutMs?: number): Promise<CheckOutAnswer> {
    const answer = await this.request('POST', url, body, timeoutMs);
    const read = scanAnswerOf('check_out', answer.status, answer.body, answer.retryAfter);
    if (read instanceof IssuerHttpError) throw read;
    return read as CheckOutAnswer;
  }

  /**
   * POSTs queued scans in one upload (`POST /api/v1/tickets/scans`). Resolves with one result per
   * scan, in order, each what the single endpoint would have answered (read it with `scanAnswerOf`);
   * throws IssuerHttpError when the upload as a whole was not taken (an issuer without the route
   * answers 404 or 405), IssuerNetworkError when there is no answer.
   */
  async uploadScans(
    url: string,
    scans: (ScanUploadItem | ScanUploadAnnul)[],
    timeoutMs?: number,
  ): Promise<ScanUploadResult[]> {
    const answer = await this.request('POST', url, { scans }, timeoutMs);
    if (answer.status !== 200) throw this.errorOf(answer);
    const results = (answer.body as { results?: unknown } | null)?.results;
    const resultShaped = (r: unknown) =>
      typeof r === 'object' && r !== null && Number.isInteger((r as ScanUploadResult).status_code);
    if (!Array.isArray(results) || results.length !== scans.length || !results.every(resultShaped)) {
      throw invalidAnswer('upload answer without one result per scan');
    }
    return results as ScanUploadResult[];
  }

  /**
   * POSTs an annul (`POST /api/v1/tickets/check-in/annul`). Resolves with the 200 answer; throws
   * IssuerHttpError for an envelope (409 CONFLICT with `details.reason`, 404 NOT_FOUND, …),
   * IssuerNetworkError when there is no answer.
   */
  async annul(url: string, body: AnnulRequestBody, timeoutMs?: number): Promise<AnnulAnswer> {
    const answer = await this.request('POST', url, body, timeoutMs);
    const read = annulAnswerOf(answer.status, answer.body, answer.retryAfter);
    if (read instanceof IssuerHttpError) throw read;
    return read;
  }

  /**
   * The event's rules (`GET /api/v1/events/{eid}/rules`), checked. An issuer from before the route
   * answers 404 (an IssuerHttpError): see `fetchRules`, which then reads the gates route.
   */
  async rules(url: string): Promise<RulesAnswer> {
    return checkRules(this.expectOk(await this.request('GET', url)), (what) => invalidAnswer(`rules answer: ${what}`));
  }

  /** The event's declared gates and re-entry setting; an issuer without gates answers none. */
  async gates(url: string): Promise<GatesAnswer> {
    let answer: Partial<GatesAnswer>;
    try {
      answer = this.expectOk(await this.request('GET', url)) as Partial<GatesAnswer>;
    } catch (error) {
      // An issuer from before gates: nothing is declared, as the spec has it.
      if (error instanceof IssuerHttpError && error.status === 404) return { gates: [], reentry: false };
      throw error;
    }
    if (!Array.isArray(answer.gates) || !answer.gates.every(isGateRule) || typeof answer.reentry !== 'boolean') {
      throw invalidAnswer('gates answer without gates or reentry');
    }
    return answer as GatesAnswer;
  }

  /**
   * Finds holders by name (`GET /api/v1/events/{eid}/tickets/search?q=`): the issuer's answer,
   * checked. A key without the permission gets an IssuerHttpError (403 FORBIDDEN).
   */
  async searchHolders(url: string, q: string, timeoutMs?: number): Promise<HolderSearchAnswer> {
    const query = new URLSearchParams({ q });
    const answer = this.expectOk(await this.request('GET', `${url}?${query.toString()}`, undefined, timeoutMs));
    if (!isHolderSearchAnswer(answer)) throw invalidAnswer('search answer without its tickets');
    return answer;
  }

  async changes(url: string, after: string | null, limit = 1000): Promise<ChangesPage> {
    const query = new URLSearchParams({ limit: String(limit) });
    if (after !== null) query.set('after', after);
    const page = this.expectOk(await this.request('GET', `${url}?${query.toString()}`)) as Partial<ChangesPage>;
    if (!Array.isArray(page.changes) || typeof page.next_cursor !== 'string' || typeof page.has_more !== 'boolean') {
      throw invalidAnswer('changes page without changes, next_cursor or has_more');
    }
    return page as ChangesPage;
  }

  /** One request; the API key goes only to the scanner routes, never to discovery or enrolment. */
  private async request(
    method: HttpRequest['method'],
    url: string,
    body?: unknown,
    timeoutMs?: number,
    authenticated = true,
  ): Promise<RawAnswer> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (authenticated && this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    const limit = timeoutMs ?? this.options.timeoutMs ?? 10_000;
    try {
      const res = await this.transport({
        method,
        url,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        timeoutMs: limit,
      });
      return { status: res.status, retryAfter: res.header('retry-after'), body: parseJson(res.body) };
    } catch (error) {
      throw networkError(error, safeOrigin(url));
    }
  }

  private expectOk(answer: RawAnswer): unknown {
    if (answer.status >= 200 && answer.status < 300 && answer.body !== null) return answer.body;
    throw this.errorOf(answer);
  }

  /** The typed error of a non-outcome answer. */
  private errorOf(answer: RawAnswer): IssuerHttpError {
    return httpErrorOf(answer.status, answer.body, answer.retryAfter);
  }
}

/** The typed error of an answer in the envelope (or of one that is not the issuer's JSON at all). */
function httpErrorOf(status: number, body: unknown, retryAfterHeader: string | null): IssuerHttpError {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  const details = (typeof error?.details === 'object' && error.details !== null ? error.details : {}) as Record<
    string,
    unknown
  >;
  const code = typeof error?.code === 'string' ? error.code : 'INVALID_ANSWER';
  const message = typeof error?.message === 'string' ? error.message : `unexpected answer (HTTP ${status})`;
  return new IssuerHttpError(status, code, message, details, retryAfter(retryAfterHeader, details));
}

/**
 * What a scan's answer says, whether it came alone or as a result of an upload: its outcome (200, or
 * 400 `invalid_signature`), else the error it carries (the envelope, as IssuerHttpError).
 */
export function scanAnswerOf(
  action: 'check_in' | 'check_out',
  status: number,
  body: unknown,
  retryAfterHeader: string | null = null,
): CheckInAnswer | CheckOutAnswer | IssuerHttpError {
  const outcome = (body as { status?: unknown } | null)?.status;
  const outcomes: readonly unknown[] = action === 'check_in' ? CHECK_IN_OUTCOMES : CHECK_OUT_STATUSES;
  if ((status === 200 && outcomes.includes(outcome)) || (status === 400 && outcome === 'invalid_signature')) {
    return body as CheckInAnswer | CheckOutAnswer;
  }
  return httpErrorOf(status, body, retryAfterHeader);
}

/** What an annul's answer says, alone or as a result of an upload: annulled, else the error it carries. */
export function annulAnswerOf(
  status: number,
  body: unknown,
  retryAfterHeader: string | null = null,
): AnnulAnswer | IssuerHttpError {
  const answer = body as Partial<AnnulAnswer> | null;
  const ticket = answer?.ticket;
  const shaped =
    typeof ticket === 'object' &&
    ticket !== null &&
    typeof ticket.tid === 'string' &&
    (ticket.checked_in_at === null || typeof ticket.checked_in_at === 'string');
  if (status === 200 && answer?.status === 'annulled' && shaped) return answer as AnnulAnswer;
  if (status === 200) return invalidAnswer('annul answer without status annulled and the ticket');
  return httpErrorOf(status, body, retryAfterHeader);
}

/** A body as JSON, or null when it is empty or not JSON. */
function parseJson(text: string): unknown {
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return null;
  }
}

/** The scheme, host and port of a URL, for messages (never a path or query, which could hold a secret). */
function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the issuer';
  }
}

function invalidAnswer(what: string): IssuerHttpError {
  return new IssuerHttpError(200, 'INVALID_ANSWER', what);
}
