import type { EventSettingsCache } from '../domain/event-settings.ts';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  onRequestAsyncHookHandler,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config.ts';
import type { Clock } from '../domain/clock.ts';
import type { TicketSigner } from '../domain/signing.ts';
import type { Store } from '../store/store.ts';
import type { WebhookWaker } from '../webhooks/delivery.ts';
import type { GoogleWalletLinks } from '../delivery/google-wallet.ts';
import type { MailDelivery } from '../delivery/mail-delivery.ts';
import type { IssuerMetrics } from './operations/metrics.ts';
import type { RateLimitHooks } from './rate-limit.ts';
import type { HashPool } from '../domain/hash-pool.ts';
import type { HolderLinks } from '../domain/holder-links.ts';
import type { WalletLinks } from '../holder/page.ts';
import type { PdfPool } from '../holder/pdf-pool.ts';
import type { RefusalDigest } from './refusal-digest.ts';
import type { AppleWallet } from '../delivery/apple/wallet.ts';

/** What every route needs, handed to each route plugin. */
export interface AppContext {
  config: Config;
  store: Store;
  clock: Clock;
  signer: TicketSigner;
  metrics: IssuerMetrics;
  /** The hash the admin token is checked against (it changes when the token is reset). */
  adminTokenHash: () => Promise<string>;
  limits: RateLimitHooks;
  /** The threads that hash passwords, bounded (PASSWORD_HASH_CONCURRENCY). */
  hashing: HashPool;
  /** Refused attempts of held emails and addresses, summarized in the audit trail. */
  refusals: RefusalDigest;
  /** Events' re-entry settings for check-ins (see EventSettingsCache). */
  eventSettings: EventSettingsCache;
  /** Seals webhook secrets (and the signing keys) at rest. */
  keyEncryptionKey: Buffer;
  /** Each ticket's holder page link, and the ticket a link stands for. */
  holderLinks: HolderLinks;
  /** The threads that draw ticket PDFs, bounded. */
  pdfs: PdfPool;
  /** The wallets the holder page offers (none until they are configured). */
  wallets: WalletLinks;
  /** This instance's webhook delivery worker (null where none runs). */
  webhooks: WebhookWaker | null;
  /** Apple Wallet passes and their web service; null when Apple Wallet is not configured. */
  appleWallet: AppleWallet | null;
  /** Makes the **Add to Google Wallet** links; null when Google Wallet is not configured. */
  googleWallet: GoogleWalletLinks | null;
  /** Mail to ticket holders: whether it is configured, and this instance's worker. */
  mail: MailDelivery;
  auth: {
    scanner: onRequestAsyncHookHandler;
    /** For check-in, which judges the key again inside its transaction (see `RecentKeys`). */
    scannerCheckIn: onRequestAsyncHookHandler;
    admin: onRequestAsyncHookHandler;
  };
}

/** The Fastify instance with TypeBox types, as route plugins see it. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
