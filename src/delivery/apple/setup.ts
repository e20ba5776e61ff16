/** Apple Wallet in the app: the pass service when configured, closed with the app. */
import type { Config } from '../../config.ts';
import type { Clock } from '../../domain/clock.ts';
import type { App } from '../../http/context.ts';
import type { Store } from '../../store/store.ts';
import { AppleWallet } from './wallet.ts';

export interface AppleWalletDeps {
  config: Config;
  store: Store;
  keyEncryptionKey: Buffer;
  clock: Clock;
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
  return wallet;
}
