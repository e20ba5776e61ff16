import { type ScanAction, type ScanUploadResult, UPLOAD_BODY_LIMIT_BYTES } from '@ticket-issuer/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CheckInDeps, CheckInRequest } from '../../domain/check-in.ts';
import { IssuerError } from '../../domain/errors.ts';
import { applyUpload, SCAN_BY_ACTION, ticketOfScan, unserved } from '../../domain/scan-batch.ts';
import { annulByScanner, type AnnulRequest } from '../../domain/annul.ts';
import { annulSchema } from '../schemas/annul.ts';
import { annulDeps } from './annul.ts';
import type { ApiKeyRecord } from '../../store/store.ts';
import { STORE_RETRY_AFTER_SECONDS } from '../../store/unavailable.ts';
import { scannerKeyOf, scannerLogFields } from '../auth.ts';
import type { App, AppContext } from '../context.ts';
import { envelope, FRAMEWORK_ERRORS, STATUS_OF, validationEnvelope } from '../errors.ts';
import { SCAN_BODY_LIMIT_BYTES } from '../oversized-body.ts';
import { scanUploadSchema } from '../schemas/scans.ts';
import { clockOffsetSeconds, recordClockOffset } from '../../domain/scanner-clock.ts';
import { CheckInBody, checkInSchema, checkOutSchema } from '../schemas/tickets.ts';
import { loneSurrogateError } from '../validation.ts';
import { scanDeps } from './tickets.ts';

type Scan = Record<string, unknown>;

/** A status and a body, as an endpoint answers them. */
interface Answer {
  status: number;
  body: unknown;
}

/** The single endpoint's route schema of each action: its answers are serialized by it. */
const SINGLE_ROUTE: Record<ScanAction, { response: Record<number, unknown> }> = {
  check_in: checkInSchema,
  check_out: checkOutSchema,
  annul: annulSchema,
};

const ACTION_PROBLEM = 'must be one of "check_in", "check_out", "annul"';

/**
 * `POST /api/v1/tickets/scans`: a scanner's queued scans in one request, each decided by its single
 * endpoint's domain function and answered exactly as that endpoint would answer it. Authentication
 * and the request rate limit apply once to the upload; each scan counts against the scan budget.
 */
export function scanUploadRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/api/v1/tickets/scans',
    {
      schema: scanUploadSchema,
      bodyLimit: UPLOAD_BODY_LIMIT_BYTES,
      // A lone surrogate in one scan is that scan's 400, not the upload's.
      config: { checksItemsApart: true },
      onRequest: [ctx.limits.checkInPerKey, ctx.auth.scannerCheckIn],
    },
    async (request, reply) => {
      const receivedAt = ctx.clock.now();
      const elsewhere = loneSurrogateError([request.params, request.query]);
      if (elsewhere) throw elsewhere;
      const sentAt = request.body.sent_at;
      const offset = sentAt === undefined ? null : clockOffsetSeconds(sentAt, receivedAt);
      const scans = request.body.scans as Scan[];
      // Each scan counts against the key's scan budget, besides the request's one check-in count.
      await ctx.limits.scansPerKey(request, reply, scans.length);
      const upload = uploadOf(ctx, request, reply);
      // The event's settings read once, before the scans ask for them all at once.
      const rules = await upload.deps.rules?.(upload.key.eid);
      // An event where no holder comes in twice: check-ins that join the store's batches, each holding
      // no connection; otherwise as many at once as the store allows.
      const concurrency = rules?.reentry === false ? Number.POSITIVE_INFINITY : ctx.store.checkIns.uploadConcurrency;
      const storeServes = () =>
        ctx.store.ping().then(
          () => true,
          () => false,
        );
      const results = await applyUpload(
        scans,
        ticketOfScan(scans),
        (scan) => resultOf(upload, scan),
        (scan) => unavailableResult(upload, scan),
        { concurrency, storeServes },
      );
      if (offset !== null) await keepClockOffset(upload, offset);
      return { results };
    },
  );
}

/** Keeps the scanner's clock offset; a failure to keep it costs the upload nothing (its scans are answered). */
async function keepClockOffset(upload: Upload, offset: number): Promise<void> {
  try {
    await recordClockOffset(upload.ctx.store, upload.key, offset);
  } catch (error) {
    upload.request.log.warn({ err: error, ...scannerLogFields(upload.request) }, 'clock offset not kept');
  }
}

/** What answering the scans of one upload needs: its request, its scanner and the single body's validator. */
interface Upload {
  ctx: AppContext;
  request: FastifyRequest;
  reply: FastifyReply;
  key: ApiKeyRecord;
  deps: CheckInDeps;
  validate: ReturnType<FastifyRequest['compileValidationSchema']>;
  validateAnnul: ReturnType<FastifyRequest['compileValidationSchema']>;
}

function uploadOf(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): Upload {
  const key = scannerKeyOf(request);
  const validate = request.compileValidationSchema(CheckInBody as object, 'body');
  const validateAnnul = request.compileValidationSchema(annulSchema.body as object, 'body');
  const deps = { ...scanDeps(ctx, request, key), queued: true };
  return { ctx, request, reply, key, deps, validate, validateAnnul };
}

/**
 * The answer of a scan the store could not serve: its single endpoint's 503 (the body's
 * `retry_after_seconds` stands for the header an upload cannot carry per scan).
 */
function unavailableResult(upload: Upload, scan: Scan): ScanUploadResult {
  const idempotency_key = typeof scan.idempotency_key === 'string' ? scan.idempotency_key : null;
  upload.request.log.warn(scannerLogFields(upload.request), 'scan of an upload not served: store unavailable');
  const details = { retry_after_seconds: STORE_RETRY_AFTER_SECONDS };
  return {
    idempotency_key,
    status_code: 503,
    body: envelope('UNAVAILABLE', 'the store is unavailable; retry later', details),
  };
}

/** A scan's result: what its single endpoint would have answered, status and body. */
async function resultOf(upload: Upload, scan: Scan): Promise<ScanUploadResult> {
  const { action, ...body } = scan;
  const idempotencyKey = typeof scan.idempotency_key === 'string' ? scan.idempotency_key : null;
  let answer: Answer;
  if (action !== 'check_in' && action !== 'check_out' && action !== 'annul') {
    const fields = [{ field: 'action', problem: ACTION_PROBLEM }];
    answer = {
      status: 400,
      body: envelope('INVALID_REQUEST', `invalid request: action ${ACTION_PROBLEM}`, { fields }),
    };
  } else {
    const decided = await decide(upload, action, body);
    answer = { status: decided.status, body: serializedAs(upload.reply, SINGLE_ROUTE[action], decided) };
  }
  return { idempotency_key: idempotencyKey, status_code: answer.status, body: answer.body };
}

/** The single endpoint's steps in its order: body size, text, schema, then the domain function. */
async function decide(upload: Upload, action: ScanAction, body: Scan): Promise<Answer> {
  if (Buffer.byteLength(JSON.stringify(body)) > SCAN_BODY_LIMIT_BYTES) {
    const tooLarge = FRAMEWORK_ERRORS.FST_ERR_CTP_BODY_TOO_LARGE!;
    return { status: tooLarge.status, body: envelope('INVALID_REQUEST', tooLarge.message) };
  }
  const surrogate = loneSurrogateError([body]);
  if (surrogate) return refusal(upload.request, surrogate);
  const validate = action === 'annul' ? upload.validateAnnul : upload.validate;
  if (!validate(body)) return { status: 400, body: validationEnvelope(validate.errors ?? [], 'body') };
  if (action === 'annul') {
    try {
      return {
        status: 200,
        body: await annulByScanner(annulDeps(upload.ctx), upload.key, body as unknown as AnnulRequest),
      };
    } catch (error) {
      return refusal(upload.request, error);
    }
  }
  try {
    const request = body as unknown as CheckInRequest;
    const { answer, replay } = await SCAN_BY_ACTION[action](upload.deps, upload.key, request, undefined);
    if (action === 'check_in') upload.ctx.metrics.checkIn((answer.body as { status?: unknown }).status, replay);
    return { status: answer.http_status, body: answer.body };
  } catch (error) {
    return refusal(upload.request, error);
  }
}

/** A scan's failure as the error handler renders it; one for want of the store is the upload's to answer. */
function refusal(request: FastifyRequest, error: unknown): Answer {
  if (unserved(error)) throw error;
  if (error instanceof IssuerError) {
    if (STATUS_OF[error.code] >= 500) request.log.error({ err: error, ...scannerLogFields(request) }, 'scan failed');
    return { status: STATUS_OF[error.code], body: envelope(error.code, error.message, error.details) };
  }
  request.log.error({ err: error, ...scannerLogFields(request) }, 'scan of an upload failed');
  const body = envelope('INTERNAL', 'internal error; retry with exponential backoff', { request_id: request.id });
  return { status: 500, body };
}

/**
 * A body as the single route sends it: through that route's response schema for the status (its
 * serializer keeps only the fields the schema names), or as it is where the route declares none.
 */
function serializedAs(reply: FastifyReply, route: { response: Record<number, unknown> }, answer: Answer): unknown {
  const declared = route.response[answer.status] as { content?: Record<string, { schema?: object }> } | undefined;
  const schema = declared?.content?.['application/json']?.schema;
  if (schema === undefined) return answer.body;
  const serialize = reply.compileSerializationSchema(schema as Record<string, unknown>, String(answer.status));
  return JSON.parse(serialize(answer.body as Record<string, unknown>)) as unknown;
}
