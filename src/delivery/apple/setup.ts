/** Apple Wallet in the app: the pass service and this instance's push worker when configured, closed with the app. */
import type { Config } from '../../config.ts';
import type { App } from '../../http/context.ts';
import { OutboxWorker } from '../../outbox/worker.ts';
import type { Store } from '../../store/store.ts';
import { ApnsClient } from '../apns.ts';
import { ApplePushSender } from './push-sender.ts';
import { AppleWallet } from './wallet.ts';

export interface AppleWalletDeps {
  config: Config;
  store: Store;
  keyEncryptionKey: Buffer;
  /** Run this instance's push worker (default true, when APNs is configured). */
  pushWorker?: boolean;
  /** Certificates the APNs client trusts instead of the system's (tests: a local APNs). */
  apnsCa?: Buffer;
  /** How often the push worker looks for due pushes (ms). */
  pushPollMs?: number;
}

/** The Apple Wallet service of this instance, or null when Apple Wallet is not configured. */
export function appleWallet(app: App, deps: AppleWalletDeps): AppleWallet | null {
  const { config } = deps;
  if (config.apple === null) return null;
  const wallet = new AppleWallet(config.apple, deps.store, {
    baseUrl: config.baseUrl,
    issuerName: config.issuerName,
    keyEncryptionKey: deps.keyEncryptionKey,
  });
  app.addHook('onClose', async () => wallet.close());
  const apns = config.apple.apns;
  if (apns === null || deps.pushWorker === false) return wallet;
  const client = new ApnsClient({
    url: apns.url,
    key: apns.key,
    keyId: apns.keyId,
    teamId: config.apple.teamId,
    ...(deps.apnsCa ? { ca: deps.apnsCa } : {}),
  });
  const log = app.log.child({ component: 'apple-pushes' });
  const sender = new ApplePushSender({
    store: deps.store,
    send: (token, topic) => client.send(token, topic),
    retrySchedule: apns.retrySchedule,
    log,
  });
  // Ten pushes at once; ended ones past the retention are purged once an hour.
  const worker = new OutboxWorker(sender, {
    log,
    pollMs: deps.pushPollMs || 1_000,
    limits: { concurrency: 10, claimLimit: 100, perGroup: Infinity },
    purgeEveryMs: 3_600_000,
  });
  app.addHook('onReady', async () => worker.start());
  app.addHook('onClose', async () => {
    await worker.stop();
    client.close();
  });
  return wallet;
}
