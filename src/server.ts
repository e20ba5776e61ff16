import { openIssuer } from './bootstrap.ts';
import { ConfigError, loadConfig } from './config.ts';

/** How long in-flight requests get to finish on SIGTERM/SIGINT before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

/** Start-up only: read the configuration, open the issuer, listen, close with grace on a signal. */
async function main(): Promise<void> {
  const config = loadConfig();
  const issuer = await openIssuer(config);
  // Listened for before the server listens: a signal that arrives at any moment from here on closes
  // the issuer with grace (Node's default for SIGTERM would end the process at once, log lines unwritten).
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    issuer.app.log.info({ signal }, 'shutting down: finishing requests in flight');
    setTimeout(() => {
      process.stderr.write('shutdown: requests still in flight after 10 s; exiting\n');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    // The log's last lines may still be in its buffer: written out before the process ends.
    const log = issuer.app.log as unknown as { flush?: (done: () => void) => void };
    const exit = (code: number) => (log.flush ? log.flush(() => process.exit(code)) : process.exit(code));
    issuer.close().then(
      () => exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown: ${error instanceof Error ? error.message : String(error)}\n`);
        exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  let address: string;
  try {
    address = await issuer.app.listen({ port: config.port, host: config.host });
    // Fastify names its own servers' scheme; the HTTPS one is made here (see buildApp's `tls`).
    if (config.tls !== null) address = address.replace(/^http:/, 'https:');
  } catch (error) {
    await issuer.close().catch(() => undefined);
    const lost =
      issuer.generatedAdminToken === null
        ? ''
        : ' (the admin token generated on this start was not shown: run `npm run reset-admin-token` for a new one)';
    throw new Error(`cannot listen on ${config.host}:${config.port}: ${(error as Error).message}${lost}`);
  }
  for (const notice of issuer.notices) issuer.app.log.warn(notice);
  issuer.app.log.info(
    {
      address,
      base_url: issuer.config.baseUrl,
      database: config.databaseUrl.startsWith('postgres') ? 'postgres' : 'sqlite',
    },
    'issuer listening',
  );
  if (issuer.generatedAdminToken !== null) {
    // Printed once the server listens, straight to the terminal and never through the logger: only its hash is kept.
    process.stderr.write(
      `\nAdmin token (shown this once; only its hash is stored):\n\n  ${issuer.generatedAdminToken}\n\n` +
        'Keep it safe, or set ADMIN_TOKEN to choose your own (`npm run reset-admin-token` makes a new one).\n\n',
    );
  }
  process.stderr.write(`Ticket issuer listening on ${address} (iss ${issuer.config.baseUrl})\n`);
}

main().catch((error: unknown) => {
  const message =
    error instanceof ConfigError
      ? `configuration error: ${error.message}`
      : `failed to start: ${error instanceof Error ? error.message : String(error)}`;
  process.stderr.write(`${message.replace(/\s*\n\s*/g, ' ')}\n`);
  process.exit(1);
});
