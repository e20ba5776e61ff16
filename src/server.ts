import { openIssuer } from './bootstrap.ts';
import { ConfigError, loadConfig } from './config.ts';

/** Start-up only: read the configuration, open the issuer, listen, close with grace on a signal. */
async function main(): Promise<void> {
  const config = loadConfig();
  const issuer = await openIssuer(config);
  if (issuer.generatedAdminToken !== null) {
    // Printed once, straight to the terminal and never through the logger: only its hash is kept.
    process.stderr.write(
      `\nAdmin token (shown this once; only its hash is stored):\n\n  ${issuer.generatedAdminToken}\n\n` +
        'Keep it safe, or set ADMIN_TOKEN to choose your own.\n\n',
    );
  }
  const address = await issuer.app.listen({ port: config.port, host: config.host });
  issuer.app.log.info(
    { address, base_url: config.baseUrl, database: config.databaseUrl.startsWith('postgres') ? 'postgres' : 'sqlite' },
    'issuer listening',
  );
  process.stderr.write(`Ticket issuer listening on ${address} (iss ${config.baseUrl})\n`);

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    issuer.app.log.info({ signal }, 'shutting down');
    issuer.close().then(
      () => process.exit(0),
      (error: unknown) => {
        issuer.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  const message =
    error instanceof ConfigError
      ? `configuration error: ${error.message}`
      : `failed to start: ${error instanceof Error ? error.message : String(error)}`;
  process.stderr.write(`${message}\n`);
  process.exit(1);
});
