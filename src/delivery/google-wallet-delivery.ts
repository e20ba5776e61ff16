/**
 * Google Wallet wired into the app: with GOOGLE_WALLET_* set, revocations and reissues enqueue pushes
 * (the store's `google` channel is turned on) and this instance's worker sends them; without, the
 * channel is turned off so that nothing piles up. The save links are made by `GoogleWalletLinks`.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import type { Clock } from '../domain/clock.ts';
import type { HolderTicket } from '../holder/holder-ticket.ts';
import type { WalletLinks } from '../holder/page.ts';
import { OutboxWorker } from '../outbox/worker.ts';
import type { Store } from '../store/store.ts';
import { GoogleWalletApi } from './google-wallet-api.ts';
import { GoogleWalletLinks } from './google-wallet.ts';
import { GooglePushSender } from './wallet-push-sender.ts';

/** Seconds Google's token endpoint and Wallet API have to answer one request. */
const GOOGLE_TIMEOUT_S = 15;

export interface GoogleWalletOptions {
  store: Store;
  config: Config;
  clock: Clock;
  /** Run this instance's push worker (default true). */
  run: boolean;
  /** Extra certificate authorities (PEM) trusted when calling Google: a stand-in's, in tests. */
  ca?: string | undefined;
  pollMs?: number;
}

/** Starts (on ready) and stops (on close) this instance's part of Google Wallet; answers the link maker, or null when off. */
export function googleWalletDelivery(app: FastifyInstance, o: GoogleWalletOptions): GoogleWalletLinks | null {
  const settings = o.config.googleWallet;
  const log = app.log.child({ component: 'google-wallet' });
  if (settings === null) {
    app.addHook('onReady', async () => {
      try {
        await o.store.walletPushes.setChannel('google', false);
      } catch (error) {
        log.warn({ err: { message: (error as Error).message } }, 'google wallet: could not turn pushes off');
      }
    });
    return null;
  }
  const api = new GoogleWalletApi(settings, { timeoutMs: GOOGLE_TIMEOUT_S * 1000, ca: o.ca });
  const sender = new GooglePushSender({
    store: o.store,
    api,
    clock: o.clock,
    log,
    leaseSeconds: 5 * GOOGLE_TIMEOUT_S + 15,
  });
  // Sixteen patches at once.
  const worker = new OutboxWorker(sender, {
    log,
    pollMs: o.pollMs ?? 1000,
    limits: { concurrency: 16, claimLimit: 16, perGroup: Infinity },
  });
  app.addHook('onReady', async () => {
    // Before any request: a revocation made from now on enqueues its push.
    await o.store.walletPushes.setChannel('google', true);
    if (o.run) worker.start();
  });
  app.addHook('onClose', async () => worker.stop());
  return new GoogleWalletLinks(settings);
}

/** The holder page's wallets, with **Add to Google Wallet** when Google Wallet is configured. */
export function withGoogleWallet(
  wallets: WalletLinks,
  links: GoogleWalletLinks | null,
  o: { config: Config; clock: Clock },
): WalletLinks {
  if (links === null) return wallets;
  const googleSaveUrl = async (holder: HolderTicket): Promise<string> => {
    const { ticket, event } = holder;
    const input = { ticket, event, baseUrl: o.config.baseUrl, issuerName: o.config.issuerName, now: o.clock.now() };
    // The page asks only for a ticket it shows a QR code for: never a revoked one, which has no link.
    const link = await links.saveLink(input);
    if (link === null) throw new Error('a revoked ticket has no Google Wallet link');
    return link;
  };
  return { ...wallets, googleSaveUrl };
}
