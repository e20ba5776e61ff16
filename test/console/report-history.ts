/**
 * A small crafted history for the Report page's tests: an event in Asia/Kolkata (its hours start at
 * half past in UTC) with re-entry, two gates, an exit and a re-entry, an annulled entry, a revoked
 * ticket never used and a ticket never scanned, all within the last three hours.
 */
import { randomUUID } from 'node:crypto';
import { admin, enrollWith, type RunningIssuer } from './harness.ts';

export const ZONE = 'Asia/Kolkata';

/** What the history makes the report say (the parts that do not depend on the hour of the run). */
export const EXPECTED = {
  tickets: { issued: 6, revoked: 1, checked_in: 3, no_show: 2 },
  by_gate: [
    { gate_id: 'north', entries: 2, exits: 1 },
    { gate_id: 'south', entries: 2, exits: 0 },
  ],
  by_type: [
    { ticket_type: 'GA', issued: 4, checked_in: 2, no_show: 2 },
    { ticket_type: 'VIP', issued: 2, checked_in: 1, no_show: 0 },
  ],
  peak: 3,
};

export async function craftedHistory(issuer: RunningIssuer, name: string): Promise<string> {
  const { eid } = await admin<{ eid: string }>(issuer, 'POST', '/events', {
    name,
    event_date: new Date(Date.now() - 4 * 3600_000).toISOString(),
    timezone: ZONE,
  });
  await admin(issuer, 'PATCH', `/events/${eid}`, { reentry: true });
  await admin(issuer, 'PUT', `/events/${eid}/gates/north`, { name: 'North gate', admits: null });
  const { tickets } = await admin<{ tickets: { tid: string }[] }>(issuer, 'POST', `/events/${eid}/tickets`, {
    tickets: [
      { holder_name: 'Ada Lovelace', ticket_type: 'GA' },
      { holder_name: 'Alan Turing', ticket_type: 'GA' },
      { holder_name: 'Grace Hopper', ticket_type: 'GA' },
      { holder_name: 'Frances Allen', ticket_type: 'GA' },
      { holder_name: 'Donald Knuth', ticket_type: 'VIP' },
      { holder_name: 'Edsger Dijkstra', ticket_type: 'VIP' },
    ],
  });
  const [ada, alan, grace, , donald, edsger] = tickets.map((t) => t.tid);
  const scanner = async (gate: string) => {
    const { token } = await admin<{ token: string }>(issuer, 'POST', `/events/${eid}/enrollment-tokens`, {
      gate_id: gate,
    });
    return { gate, ...(await enrollWith(issuer, token, gate)) };
  };
  const [north, south] = [await scanner('north'), await scanner('south')];
  const start = Date.now() - 3 * 3600_000;
  const move = async (path: string, at: typeof north, tid: string, minutes: number) => {
    const res = await fetch(`${issuer.url}/api/v1/tickets/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${at.apiKey}` },
      body: JSON.stringify({
        tid,
        eid,
        scanned_at: new Date(start + minutes * 60_000).toISOString(),
        scanner_id: at.scannerId,
        gate_id: at.gate,
        idempotency_key: randomUUID(),
      }),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  };
  await move('check-in', north, ada!, 10);
  await move('check-in', north, alan!, 15);
  await move('check-in', south, donald!, 20);
  await move('check-out', north, ada!, 70);
  await move('check-in', south, ada!, 80);
  await move('check-in', south, grace!, 90);
  // Grace's entry was a mistake: annulled, it never counts, and she is a no-show.
  const { scans } = await admin<{ scans: { scan_id: number; tid: string }[] }>(issuer, 'GET', `/events/${eid}/scans`);
  const graces = scans.find((scan) => scan.tid === grace)!;
  await admin(issuer, 'POST', `/events/${eid}/scans/${graces.scan_id}/annul`, {});
  await admin(issuer, 'POST', `/tickets/${edsger}/revoke`, { reason: 'refund' });
  return eid;
}
