import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { call, enrollScanner, type RunningServer } from './server.ts';

/**
 * Starts the real server with `env`, sends 3,000 check-ins 64 at a time, kills it with SIGKILL once
 * some were answered, starts it again on the same database and asserts that every ticket answered
 * `valid` is checked in, and that the event's counter agrees with the tickets.
 */
export async function assertKillDuringCheckInsLosesNothing(
  start: (env: Record<string, string>) => Promise<RunningServer>,
  env: Record<string, string> & { ADMIN_TOKEN: string },
): Promise<void> {
  const admin = env.ADMIN_TOKEN;
  const server = await start(env);
  const base = server.url;
  const event = await call(`${base}/admin/v1/events`, {
    bearer: admin,
    body: { name: 'Crash during check-ins', event_date: new Date(Date.now() + 3_600_000).toISOString() },
  });
  const eid = String(event.body.eid);
  const issued = await call(`${base}/admin/v1/events/${eid}/tickets`, {
    bearer: admin,
    body: { tickets: Array.from({ length: 3000 }, (_, i) => ({ holder_name: `Guest ${i}`, ticket_type: 'GA' })) },
  });
  const tids = (issued.body.tickets as { tid: string }[]).map((t) => t.tid);
  const { scannerId, apiKey } = await enrollScanner(base, admin, eid);
  const answered: string[] = [];
  let next = 0;
  let killed = false;
  // 64 in flight, as busy gates send: groups commit one after another while more arrive. Sent all at
  // once, the check-ins would form two or three groups, and the kill could land after the last.
  const send = async () => {
    while (!killed && next < tids.length) {
      const tid = tids[next++]!;
      const res = await call(`${base}/api/v1/tickets/check-in`, {
        bearer: apiKey,
        body: { tid, eid, scanned_at: new Date().toISOString(), scanner_id: scannerId, idempotency_key: randomUUID() },
      }).catch(() => null);
      if (res?.body.status === 'valid') answered.push(tid);
    }
  };
  const scans = Promise.all(Array.from({ length: 64 }, send));
  // Kill the server while check-ins are in flight, once some have been answered.
  while (answered.length < 10) await new Promise((resolve) => setImmediate(resolve));
  killed = true;
  await server.stop('SIGKILL');
  await scans;
  assert.ok(answered.length < tids.length, 'the server died mid-way');
  const again = await start(env);
  const state = new Map<string, string>();
  let cursor: string | null = null;
  do {
    const page = await call(
      `${again.url}/admin/v1/events/${eid}/tickets?limit=1000${cursor ? `&cursor=${cursor}` : ''}`,
      { bearer: admin },
    );
    for (const t of page.body.tickets as { tid: string; status: string }[]) state.set(t.tid, t.status);
    cursor = page.body.next_cursor as string | null;
  } while (cursor !== null);
  for (const tid of answered) assert.equal(state.get(tid), 'checked_in', `${tid} was answered valid`);
  const counters = await call(`${again.url}/admin/v1/events/${eid}`, { bearer: admin });
  const checkedIn = [...state.values()].filter((s) => s === 'checked_in').length;
  assert.equal((counters.body.counters as { checked_in: number }).checked_in, checkedIn);
  await again.stop();
}
