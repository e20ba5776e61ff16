import { openIssuerStore } from './bootstrap.ts';
import { ConfigError, loadConfig } from './config.ts';
import { resetAdminToken } from './domain/admin-token.ts';

/**
 * `npm run reset-admin-token`: makes a new admin token, stores its hash (the old token stops working)
 * and prints it once. For a lost generated token; with ADMIN_TOKEN set, change that instead.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  if (config.adminToken !== null) {
    throw new ConfigError('ADMIN_TOKEN is set, so the admin token is the one it names: change it there');
  }
  const store = await openIssuerStore(config);
  try {
    const token = await resetAdminToken(store);
    process.stdout.write(
      `New admin token (shown this once; the previous one no longer works):\n\n  ${token}\n\n` +
        'Running issuers accept it within 5 seconds.\n',
    );
  } finally {
    await store.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`reset-admin-token: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
