import {
  type AnnulRequestBody,
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
import { IssuerHttpError, ScannerError } from './errors.ts';
import { type AnnulAnswer, annulAnswerOf, httpErrorOf, invalidAnswer, scanAnswerOf } from './issuer-answers.ts';
import { networkError, safeOrigin } from './network-errors.ts';
import { isHolderSearchAnswer } from './holder-search.ts';
import { checkRules, isGateRule } from './rules.ts';
import { dateHeaderInstant } from './clock.ts';
import { type GroupAnswer, isGroupAnswer } from './group.ts';
import { checkDiscovery } from './state.ts';
import { fetchTransport, type HttpRequest, type Transport } from './transport.ts';

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
  /** The answer's `Date` header (the issuer's clock in whole seconds), if any. */
  date: string | null;
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
    sentAt?: Date,
  ): Promise<ScanUploadResult[]> {
    // `sent_at`: the device's own clock as it sends, by which the issuer tells how far off that clock is.
    const body = sentAt === undefined ? { scans } : { scans, sent_at: sentAt.toISOString() };
    const answer = await this.request('POST', url, body, timeoutMs);
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
    const answer = await this.request('GET', url);
    const rules = checkRules(this.expectOk(answer), (what) => invalidAnswer(`rules answer: ${what}`));
    // An issuer that does not say its time still dates its answer: the device's clock is measured by that.
    const dated = rules.server_time === undefined ? dateHeaderInstant(answer.date) : null;
    return dated === null ? rules : { ...rules, server_time: dated };
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

  /** Finds holders by name (`GET …/tickets/search?q=`), checked; a key without the permission: 403 FORBIDDEN. */
  async searchHolders(url: string, q: string, timeoutMs?: number): Promise<HolderSearchAnswer> {
    const answer = await this.read(`${url}?${new URLSearchParams({ q }).toString()}`, timeoutMs);
    if (!isHolderSearchAnswer(answer)) throw invalidAnswer('search answer without its tickets');
    return answer;
  }

  /** A ticket's group (`GET /api/v1/events/{eid}/tickets/{tid}/group`), checked; 404 for a tid not of the event. */
  async group(url: string, timeoutMs?: number): Promise<GroupAnswer> {
    const answer = await this.read(url, timeoutMs);
    if (!isGroupAnswer(answer)) throw invalidAnswer('group answer without its tickets');
    return answer;
  }

  /** A scanner route's 2xx JSON answer, shape unchecked; IssuerHttpError otherwise, IssuerNetworkError without one. */
  async read(url: string, timeoutMs?: number): Promise<unknown> {
    return this.expectOk(await this.request('GET', url, undefined, timeoutMs));
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
      return {
        status: res.status,
        retryAfter: res.header('retry-after'),
        date: res.header('date'),
        body: parseJson(res.body),
      };
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

/** A body as JSON, or null when it is empty or not JSON. */
function parseJson(text: string): unknown {
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return null;
  }
}
