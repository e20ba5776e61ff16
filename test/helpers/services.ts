import { Redis } from 'ioredis';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Redis for the tests that need a real one. When no server answers, those tests are skipped with a
 * loud warning, unless REQUIRE_SERVICES=1 (set by .ci/run), where that is a failure.
 */
export async function redisForTests(): Promise<
  { available: true; client: () => Promise<Redis> } | { available: false; reason: string }
> {
  const probe = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  probe.on('error', () => {});
  try {
    await probe.connect();
    await probe.ping();
    probe.disconnect();
  } catch (error) {
    probe.disconnect();
    const reason = `Redis not reachable at ${REDIS_URL} (${(error as Error).message})`;
    if (process.env.REQUIRE_SERVICES === '1') throw new Error(`${reason}; REQUIRE_SERVICES=1 forbids skipping`);
    process.stderr.write(`\n!!! ${reason}: Redis tests SKIPPED\n\n`);
    return { available: false, reason };
  }
  return {
    available: true,
    client: async () => {
      const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
      await new Promise<void>((resolve, reject) => {
        client.once('ready', () => resolve());
        client.once('error', reject);
      });
      return client;
    },
  };
}
