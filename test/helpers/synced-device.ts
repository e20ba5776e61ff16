/**
 * A scanner device (the scanner package, its state in memory) that talks to a test issuer through
 * `app.inject` and reads the issuer's frozen clock: enrolled (which syncs the feed, the keys and the
 * rules), it judges scans offline as a phone at a gate would, so that a test can compare its verdict
 * with the issuer's answer to the same scan at the same moment.
 */
import assert from 'node:assert/strict';
import { enroll, MemoryStorage, Scanner } from '../../packages/scanner/src/index.ts';
import type { App } from '../../src/http/context.ts';
import { adminCall, type TestIssuer } from './app.ts';

/** A fetch that answers from the app (the address's host is ignored). */
function fetchFrom(app: App): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    const res = await app.inject({
      method: (init?.method ?? 'GET') as 'GET',
      url: `${url.pathname}${url.search}`,
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
      ...(init?.body === undefined || init.body === null ? {} : { payload: String(init.body) }),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers.set(name, String(value));
    return new Response(res.statusCode === 204 ? null : res.body, { status: res.statusCode, headers });
  }) as typeof fetch;
}

/** A device enrolled into the event (by a token with `token`'s fields) and synced once; `close()` it when done. */
export async function syncedDevice(t: TestIssuer, eid: string, token: Record<string, unknown> = {}): Promise<Scanner> {
  const { setup_uri: setupUri } = await adminCall<{ setup_uri: string }>(
    t.app,
    'POST',
    `/admin/v1/events/${eid}/enrollment-tokens`,
    token,
  );
  const options = { fetch: fetchFrom(t.app), now: () => t.clock.now() };
  const storage = new MemoryStorage();
  const enrolled = await enroll(storage, setupUri, options);
  assert.equal(enrolled.sync_problem, null, 'the first sync read the feed, the keys and the rules');
  return Scanner.open(storage, options);
}

/** The device's offline verdict on a token now: its reason (`valid` when admitted). */
export async function offlineReason(device: Scanner, token: string): Promise<string> {
  const [result] = await device.scan([token], { offline: true });
  return result!.reason;
}
