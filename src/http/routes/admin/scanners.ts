import { qrCodes } from '../../qr-codes.ts';
import {
  createEnrollmentToken,
  enrollmentTokenListView,
  enrollmentTokenView,
  setupUri,
} from '../../../domain/enrollment-tokens.ts';
import { IssuerError } from '../../../domain/errors.ts';
import { requireEvent } from '../../../domain/events.ts';
import { toStored, toWire } from '../../../domain/time.ts';
import type { ApiKeyRecord, EnrollmentTokenRecord } from '../../../store/store.ts';
import type { App, AppContext } from '../../context.ts';
import { CURSOR, pageAnswer, pageParams } from './paging.ts';
import {
  createEnrollmentTokenSchema,
  listEnrollmentTokensSchema,
  listScannersSchema,
  revokeApiKeySchema,
  revokeEnrollmentTokenSchema,
} from '../../schemas/admin.ts';

function scannerView(key: ApiKeyRecord) {
  return {
    scanner_id: key.scanner_id,
    name: key.scanner_name,
    platform: key.scanner_platform,
    api_key_id: key.api_key_id,
    gate_id: key.gate_id,
    enrolled_at: toWire(key.enrolled_at),
    expires_at: toWire(key.expires_at),
    last_seen_at: toWire(key.last_seen_at),
    revoked_at: toWire(key.revoked_at),
    allow_search: key.allow_search,
    clock_offset_s: key.clock_offset_s ?? null,
  };
}

/**
 * A used token cannot be revoked any more: revoking it would change nothing, and a 200 would let the
 * organizer believe the scanner it enrolled is locked out. The answer names that scanner's key instead.
 */
async function usedTokenConflict(ctx: AppContext, token: EnrollmentTokenRecord): Promise<IssuerError> {
  const key = await ctx.store.scanners.findApiKeyByToken(token.token_id);
  const scanner = key ? `scanner ${key.scanner_id} (API key ${key.api_key_id})` : 'a scanner';
  return new IssuerError(
    'CONFLICT',
    `this enrolment token was already used by ${scanner}; revoke that API key instead`,
    { token_id: token.token_id, scanner_id: key?.scanner_id ?? null, api_key_id: key?.api_key_id ?? null },
  );
}

/** Scanner access: enrolment tokens with their setup QR, scanner records, API-key revocation. */
export function adminScannerRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/admin/v1/events/:eid/enrollment-tokens',
    { schema: createEnrollmentTokenSchema },
    async (request, reply) => {
      const event = await requireEvent(ctx.store, request.params.eid);
      const { record, token, gateDeclared } = await createEnrollmentToken(ctx, event, request.body);
      const uri = setupUri(ctx.config.baseUrl, token);
      // The link a phone's own camera opens: the web scanner, enrolling itself from the fragment
      // (a fragment never reaches a server, so the token stays out of access logs).
      const webScannerUrl = `${ctx.config.baseUrl}/scan/#setup=${encodeURIComponent(uri)}`;
      const QRCode = await qrCodes();
      const [svg, png, webScannerPng] = await Promise.all([
        QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }),
        QRCode.toDataURL(uri, { errorCorrectionLevel: 'M', margin: 2, scale: 6 }),
        QRCode.toDataURL(webScannerUrl, { errorCorrectionLevel: 'M', margin: 2, scale: 6 }),
      ]);
      request.log.info(
        { token_id: record.token_id, eid: event.eid, gate_id: record.gate_id, gate_declared: gateDeclared },
        'enrolment token created',
      );
      return reply.status(201).send({
        ...enrollmentTokenView(record),
        gate_declared: gateDeclared,
        token,
        setup_uri: uri,
        setup_qr_svg: svg,
        setup_qr_png: png,
        web_scanner_url: webScannerUrl,
        web_scanner_qr_png: webScannerPng,
      });
    },
  );

  app.get('/admin/v1/events/:eid/enrollment-tokens', { schema: listEnrollmentTokensSchema }, async (request) => {
    const event = await requireEvent(ctx.store, request.params.eid);
    const now = toStored(ctx.clock.now());
    const tokens = await ctx.store.scanners.listEnrollmentTokens(event.eid);
    return { enrollment_tokens: tokens.map((token) => enrollmentTokenListView(token, now)) };
  });

  app.post('/admin/v1/enrollment-tokens/:token_id/revoke', { schema: revokeEnrollmentTokenSchema }, async (request) => {
    const record = await ctx.store.scanners.revokeEnrollmentToken(request.params.token_id, toStored(ctx.clock.now()));
    if (!record) throw new IssuerError('NOT_FOUND', 'no enrolment token has this token_id');
    if (record.used_at !== null) throw await usedTokenConflict(ctx, record);
    request.log.info({ token_id: record.token_id }, 'enrolment token revoked');
    return enrollmentTokenView(record);
  });

  app.get('/admin/v1/events/:eid/scanners', { schema: listScannersSchema }, async (request) => {
    const event = await requireEvent(ctx.store, request.params.eid);
    const { limit, cursor } = pageParams(request.query, CURSOR.scanner);
    const page = await ctx.store.scanners.listApiKeys(event.eid, limit, cursor);
    return pageAnswer('scanners', page.items.map(scannerView), page.next_cursor);
  });

  app.post('/admin/v1/api-keys/:api_key_id/revoke', { schema: revokeApiKeySchema }, async (request) => {
    const key = await ctx.store.scanners.revokeApiKey(request.params.api_key_id, toStored(ctx.clock.now()));
    if (!key) throw new IssuerError('NOT_FOUND', 'no API key has this api_key_id');
    request.log.info({ api_key_id: key.api_key_id }, 'API key revoked');
    return scannerView(key);
  });
}
