/**
 * What the in-process benchmarks (gates, webhooks) share: an app on a store with rate limits out of
 * the way, an event with tickets and an enrolled scanner, check-ins at a steady concurrency, and the
 * quantile of a set of figures.
 */
import { randomUUID } from 'node:crypto';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { hashSecret } from '../src/domain/ids.ts';
import type { Store } from '../src/store/store.ts';
import { withoutRateLimits } from '../src/config-limits.ts';

export const ADMIN = 'bench-admin-token-0123456789abcdef';
/** Check-ins in flight at once, as a few busy gates send them. */
export const CONCURRENCY = 16;
export const admin = { authorization: `Bearer ${ADMIN}` };

const NO_LIMITS = withoutRateLimits();

/** The benchmarks' configuration: quiet logs, no rate limits, and `env` on top. */
export function benchConfig(env: Record<string, string> = {}) {
  return loadConfig({ ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'silent', BASE_URL: 'https://bench.test', ...NO_LIMITS, ...env });
}

/** The app on `store` (the webhook worker running unless told not to). */
export function appOn(config: ReturnType<typeof benchConfig>, store: Store, webhookWorker = true) {
  return buildApp(config, {
    store,
    keyEncryptionKey: Buffer.alloc(32, 1),
    adminTokenHash: hashSecret(ADMIN),
    webhookWorker,
  });
}
export type App = Awaited<ReturnType<typeof appOn>>;

/** The parsed body of an answer under 300; throws on any other. */
export async function json<T>(res: Promise<{ statusCode: number; body: string }>): Promise<T> {
  const answer = await res;
  if (answer.statusCode >= 300) throw new Error(`${answer.statusCode} ${answer.body}`);
  return JSON.parse(answer.body) as T;
}

/** An event with `count` tickets of type GA and an enrolled scanner; `gate` declared (admitting GA) when given. */
export async function eventWith(app: App, count: number, gate: string | null = null) {
  const { eid } = await json<{ eid: string }>(
    app.inject({
      method: 'POST',
      url: '/admin/v1/events',
      headers: admin,
      payload: { name: 'Bench', event_date: '2030-01-01T18:00:00Z' },
    }),
  );
  if (gate !== null) {
    await json(
      app.inject({
        method: 'PUT',
        url: `/admin/v1/events/${eid}/gates/${gate}`,
        headers: admin,
        payload: { name: gate, admits: ['GA'] },
      }),
    );
  }
  const tids: string[] = [];
  for (let i = 0; i < count; i += 10_000) {
    const tickets = Array.from({ length: Math.min(10_000, count - i) }, (_, j) => ({
      holder_name: `H${i + j}`,
      ticket_type: 'GA',
    }));
    const answer = await json<{ tickets: { tid: string }[] }>(
      app.inject({ method: 'POST', url: `/admin/v1/events/${eid}/tickets`, headers: admin, payload: { tickets } }),
    );
    tids.push(...answer.tickets.map((t) => t.tid));
  }
  const { token } = await json<{ token: string }>(
    app.inject({ method: 'POST', url: `/admin/v1/events/${eid}/enrollment-tokens`, headers: admin, payload: {} }),
  );
  const scannerId = randomUUID();
  const { api_key } = await json<{ api_key: string }>(
    app.inject({ method: 'POST', url: '/api/v1/scanners/enroll', payload: { token, scanner_id: scannerId } }),
  );
  return { eid, tids, scannerId, headers: { authorization: `Bearer ${api_key}` } };
}
export type BenchEvent = Awaited<ReturnType<typeof eventWith>>;

/** Check-ins per second of `tids` (at `gate` when given), CONCURRENCY at a time. */
export async function checkIns(app: App, target: BenchEvent, tids: string[], gate: string | null = null) {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < tids.length) {
        const tid = tids[next++]!;
        const res = await app.inject({
          method: 'POST',
          url: '/api/v1/tickets/check-in',
          headers: target.headers,
          payload: {
            tid,
            eid: target.eid,
            scanned_at: new Date().toISOString(),
            scanner_id: target.scannerId,
            idempotency_key: randomUUID(),
            ...(gate === null ? {} : { gate_id: gate }),
          },
        });
        if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
      }
    }),
  );
  return tids.length / (Number(process.hrtime.bigint() - started) / 1e9);
}

export const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.floor(q * (values.length - 1))]!;
