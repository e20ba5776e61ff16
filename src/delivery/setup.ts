import { availableParallelism } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../app.ts';
import type { Config } from '../config.ts';
import type { Clock } from '../domain/clock.ts';
import { HolderLinks } from '../domain/holder-links.ts';
import type { IssuerMetrics } from '../http/operations/metrics.ts';
import type { AppContext } from '../http/context.ts';
import { NO_WALLETS } from '../holder/page.ts';
import { PdfPool } from '../holder/pdf-pool.ts';
import { appleWallet } from './apple/setup.ts';
import { googleWalletDelivery, withGoogleWallet } from './google-wallet-delivery.ts';
import { mailDelivery } from './mail-delivery.ts';
import { ticketMailSource } from './mail-source.ts';

/** What the routes use of getting tickets to their holders. */
export type Delivery = Pick<AppContext, 'holderLinks' | 'pdfs' | 'wallets' | 'appleWallet' | 'googleWallet' | 'mail'>;

/**
 * Getting tickets to their holders: the holder links and the PDFs of the holder page, mail (its worker
 * when SMTP_URL is set), Apple Wallet's passes and pushes, and Google Wallet's links and pushes. Each
 * worker runs on this instance unless `deps` says otherwise; the threads end when the app closes.
 */
export function delivery(
  app: FastifyInstance,
  deps: AppDeps,
  { config, clock, metrics }: { config: Config; clock: Clock; metrics: IssuerMetrics },
): Delivery {
  const { store, keyEncryptionKey } = deps;
  const googleWallet = googleWalletDelivery(app, {
    store,
    config,
    clock,
    run: deps.googleWallet?.worker !== false,
    ca: deps.googleWallet?.ca,
    pollMs: deps.googleWallet?.pollMs,
  });
  const holderLinks = new HolderLinks(keyEncryptionKey, config.baseUrl);
  // The holder page's PDFs and QR codes. The mail's PDFs are drawn on the mail's own thread, never on
  // these: no one waits for an email, so that thread takes only the CPU that check-ins leave.
  const pdfs = new PdfPool(Math.max(1, availableParallelism() - 1));
  app.addHook('onClose', async () => pdfs.close());
  const mail = mailDelivery(app, {
    run: deps.mailWorker !== false,
    store,
    config,
    clock,
    metrics,
    compose: ticketMailSource({ store, clock, from: config.mail?.from ?? '', links: holderLinks }),
  });
  const offered = deps.wallets ?? { ...NO_WALLETS, appleWallet: config.apple !== null };
  return {
    holderLinks,
    pdfs,
    wallets: withGoogleWallet(offered, googleWallet, { config, clock }),
    appleWallet: appleWallet(app, {
      config,
      store,
      keyEncryptionKey,
      pushWorker: deps.applePushes?.worker ?? deps.webhookWorker,
      apnsCa: deps.applePushes?.apnsCa,
      pushPollMs: deps.applePushes?.pollMs,
    }),
    googleWallet,
    mail,
  };
}
