/**
 * Apple Wallet's PassKit web service under `<BASE_URL>/wallet/apple/v1/`, registered only when Apple
 * Wallet is configured (404 otherwise, as any unknown route). Devices call it without a person behind
 * them: each address has its own allowance (RATE_LIMIT_WALLET_PER_IP), and a wrong pass token counts as
 * a failed authentication of the address, like a wrong bearer token.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppleWallet } from '../../delivery/apple/wallet.ts';
import { IssuerError } from '../../domain/errors.ts';
import type { App, AppContext } from '../context.ts';
import {
  latestPassSchema,
  listSerialsSchema,
  MAX_LOG_ENTRIES,
  MAX_LOG_ENTRY_CHARS,
  registerDeviceSchema,
  unregisterDeviceSchema,
  walletLogSchema,
} from '../schemas/apple-wallet.ts';

const PREFIX = '/wallet/apple/v1';

/** Sends a ticket's pass (`application/vnd.apple.pkpass`, `Last-Modified`); 404 for an unknown ticket. */
export async function sendApplePass(wallet: AppleWallet, tid: string, reply: FastifyReply): Promise<FastifyReply> {
  const pass = await wallet.pass(tid);
  if (pass === null) throw new IssuerError('NOT_FOUND', 'no such pass');
  return reply
    .type('application/vnd.apple.pkpass')
    .header('last-modified', new Date(pass.changedAt).toUTCString())
    .send(pass.pkpass as never);
}

/** Whether `If-Modified-Since` is not older than the pass's last change (both in whole seconds). */
function notModifiedSince(request: FastifyRequest, changedAt: string): boolean {
  const since = request.headers['if-modified-since'];
  const sinceMs = typeof since === 'string' ? Date.parse(since) : NaN;
  return Number.isFinite(sinceMs) && sinceMs >= Math.floor(Date.parse(changedAt) / 1000) * 1000;
}

/** The holder's pass, linked from their page as **Add to Apple Wallet**: the holder link is the credential. */
function holderPassRoute(app: App, ctx: AppContext, wallet: AppleWallet): void {
  app.get<{ Params: { token: string } }>(
    '/t/:token/pass.pkpass',
    { schema: { hide: true }, onRequest: [ctx.limits.walletPerIp] },
    async (request, reply) => {
      const tid = ctx.holderLinks.tidOf(request.params.token);
      if (tid === null) throw new IssuerError('NOT_FOUND', 'no ticket has this link');
      return sendApplePass(wallet, tid, reply);
    },
  );
}

export function appleWalletRoutes(app: App, ctx: AppContext, wallet: AppleWallet): void {
  holderPassRoute(app, ctx, wallet);
  const passTypeId = wallet.settings.passTypeId;
  const countFailure = ctx.limits.authFailuresPerIp as (
    request: FastifyRequest,
    reply: FastifyReply,
  ) => Promise<unknown>;
  const known = (type: string) => {
    if (type !== passTypeId) throw new IssuerError('NOT_FOUND', 'no such pass type');
  };
  /** The pass's own authentication token, or 401 (counted against the address's failure budget). */
  const authorize = async (request: FastifyRequest, reply: FastifyReply, serial: string) => {
    const token = /^ApplePass (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (token !== undefined && wallet.authenticates(serial, token)) return;
    await countFailure(request, reply);
    throw new IssuerError('UNAUTHORIZED', 'the pass authentication token is missing or wrong');
  };
  const limits = [ctx.limits.walletPerIp, ctx.limits.authBudgetPerIp];

  app.post(
    `${PREFIX}/devices/:deviceId/registrations/:passTypeId/:serial`,
    { schema: registerDeviceSchema, onRequest: limits },
    async (request, reply) => {
      const { deviceId, serial } = request.params;
      known(request.params.passTypeId);
      await authorize(request, reply, serial);
      if ((await ctx.store.tickets.getTicket(serial)) === null) throw new IssuerError('NOT_FOUND', 'no such pass');
      const made = await ctx.store.applePasses.registerApplePassDevice({
        device_id: deviceId,
        pass_type_id: passTypeId,
        serial,
        push_token: request.body.pushToken,
        at: ctx.clock.now().toISOString(),
      });
      return reply.status(made === 'created' ? 201 : 200).send(null);
    },
  );

  app.delete(
    `${PREFIX}/devices/:deviceId/registrations/:passTypeId/:serial`,
    { schema: unregisterDeviceSchema, onRequest: limits },
    async (request, reply) => {
      const { deviceId, serial } = request.params;
      known(request.params.passTypeId);
      await authorize(request, reply, serial);
      await ctx.store.applePasses.unregisterApplePassDevice(deviceId, passTypeId, serial);
      return reply.status(200).send(null);
    },
  );

  app.get(
    `${PREFIX}/devices/:deviceId/registrations/:passTypeId`,
    { schema: listSerialsSchema, onRequest: limits },
    async (request, reply) => {
      known(request.params.passTypeId);
      const since = request.query.passesUpdatedSince ?? null;
      const found = await ctx.store.applePasses.listApplePassSerials(request.params.deviceId, passTypeId, since);
      if (found.lastUpdated === null) return reply.status(204).send(null);
      return { serialNumbers: found.serials, lastUpdated: found.lastUpdated };
    },
  );

  app.get(
    `${PREFIX}/passes/:passTypeId/:serial`,
    { schema: latestPassSchema, onRequest: limits },
    async (request, reply) => {
      const { serial } = request.params;
      known(request.params.passTypeId);
      await authorize(request, reply, serial);
      const changedAt = await ctx.store.applePasses.applePassChangedAt(serial);
      if (changedAt === null) throw new IssuerError('NOT_FOUND', 'no such pass');
      if (notModifiedSince(request, changedAt)) {
        return reply
          .status(304)
          .header('last-modified', new Date(changedAt).toUTCString())
          .send(undefined as never);
      }
      return sendApplePass(wallet, serial, reply);
    },
  );

  app.post(
    `${PREFIX}/log`,
    { schema: walletLogSchema, onRequest: [ctx.limits.walletPerIp] },
    async (request, reply) => {
      const logs = request.body.logs.slice(0, MAX_LOG_ENTRIES).map((entry) => entry.slice(0, MAX_LOG_ENTRY_CHARS));
      request.log.info(
        { wallet_logs: logs, wallet_logs_dropped: request.body.logs.length - logs.length },
        'Apple Wallet log',
      );
      return reply.status(200).send(null);
    },
  );
}
