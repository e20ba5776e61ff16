import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { enroll, IssuerHttpError, MemoryStorage, NO_ANSWER, type RetryPolicy, Scanner } from '../src/index.ts';
import { Issuer } from './issuer.ts';

let issuer: Issuer;

before(async () => {
  issuer = await Issuer.start();
});
after(async () => {
  if (issuer.output.includes('ended unexpectedly')) process.stderr.write(issuer.output);
  await issuer?.stop();
});

const ONCE: RetryPolicy = {
  initialBackoffMs: 0,
  maxAttempts: 1,
  budgetMs: 0,
  maxRetryAfterMs: 0,
  rateLimitBudgetMs: 0,
};

/** A device enrolled with a token made with these fields; `down` cuts it off from the issuer. */
async function device(eid: string, token: Record<string, unknown>) {
  const link = { down: false };
  const fetchVia = (async (input: string | URL | Request, init?: RequestInit) => {
    if (link.down) throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    return fetch(input, init);
  }) as typeof fetch;
  const { setup_uri } = await issuer.admin<{ setup_uri: string }>(
    'POST',
    `/admin/v1/events/${eid}/enrollment-tokens`,
    token,
  );
  const storage = new MemoryStorage();
  await enroll(storage, setup_uri, { fetch: fetchVia, retryPolicy: ONCE });
  const scanner = await Scanner.open(storage, { fetch: fetchVia, retryPolicy: ONCE });
  return { scanner, storage, link };
}

const status = (eid: string, tid: string) =>
  issuer
    .admin<{ tickets: { tid: string; status: string }[] }>('GET', `/admin/v1/events/${eid}/tickets?limit=100`)
    .then((page) => page.tickets.find((t) => t.tid === tid)?.status);

test('a key allowed to search finds a holder, checks them in manually, and knows it as any admit', async () => {
  const eid = await issuer.createEvent('Phone died');
  const [ada] = await issuer.issue(eid, 1, { holder_name: 'Ada Lovelace' });
  await issuer.issue(eid, 1, { holder_name: 'Alan Turing' });
  const { scanner, storage } = await device(eid, { allow_search: true });
  try {
    assert.equal(scanner.allowSearch, true);
    assert.equal(JSON.parse(storage.files.get('scanner.json')!).allow_search, true, 'kept in the device’s scope');
    const found = await scanner.search('LOVEL');
    assert.deepEqual(
      found.map((h) => [h.tid, h.holder_name, h.ticket_type, h.status, h.inside]),
      [[ada!.tid, 'Ada Lovelace', 'GA', 'valid', false]],
    );
    const result = await scanner.checkInManual(found[0]!);
    assert.deepEqual(
      [result.verdict, result.reason, result.source, result.ticket?.holder_name],
      ['admit', 'valid', 'issuer', 'Ada Lovelace'],
    );
    assert.equal(scanner.queue.size, 0);
    assert.equal(await status(eid, ada!.tid), 'checked_in');
    const scans = await issuer.admin<{ scans: { tid: string; manual: boolean }[] }>(
      'GET',
      `/admin/v1/events/${eid}/scans`,
    );
    assert.deepEqual(
      scans.scans.filter((s) => s.tid === ada!.tid).map((s) => s.manual),
      [true],
    );
    // The device counts the admit: her ticket scanned offline now is already used.
    const again = (await scanner.scan([ada!.token], { offline: true }))[0]!;
    assert.deepEqual([again.verdict, again.reason], ['reject', 'already_used']);
    const [after] = await scanner.search('lovelace');
    assert.deepEqual([after!.status, after!.inside], ['checked_in', true]);
  } finally {
    await scanner.close();
  }
});

test('without an answer a manual check-in lets nobody in, and its upload later never checks the ticket in', async () => {
  const eid = await issuer.createEvent('Network cut');
  const [grace] = await issuer.issue(eid, 1, { holder_name: 'Grace Hopper' });
  const { scanner, link } = await device(eid, { allow_search: true });
  try {
    const [found] = await scanner.search('hopper');
    link.down = true;
    const result = await scanner.checkInManual(found!);
    assert.deepEqual(
      [result.verdict, result.reason, result.issuer_contact, result.ticket?.holder_name],
      ['reject', NO_ANSWER, 'failed', 'Grace Hopper'],
    );
    assert.equal(scanner.queue.size, 1, 'kept for the scan log');
    link.down = false;
    const synced = await scanner.sync();
    assert.deepEqual([synced.remaining, synced.outcomes.turned_away_offline], [0, 1]);
    assert.equal(await status(eid, grace!.tid), 'valid');
  } finally {
    await scanner.close();
  }
});

test('a key without the permission: no search (the issuer’s 403), and the device knows it may not', async () => {
  const eid = await issuer.createEvent('No search here');
  await issuer.issue(eid, 1, { holder_name: 'Ada Lovelace' });
  const { scanner } = await device(eid, {});
  try {
    assert.equal(scanner.allowSearch, false);
    await assert.rejects(
      scanner.search('lovelace'),
      (error: unknown) => error instanceof IssuerHttpError && error.status === 403,
    );
  } finally {
    await scanner.close();
  }
});
