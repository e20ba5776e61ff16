import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe } from 'node:test';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { adminCall, type TestIssuer, testIssuer } from '../helpers/app.ts';
import { eventually } from '../helpers/eventually.ts';
import { CLIENT_EMAIL, ISSUER_ID, makeKeyFile, type TestKeyFile } from '../helpers/google-key.ts';
import { GoogleStandIn, testCertificate } from '../helpers/google-services.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';

const dir = mkdtempSync(join(tmpdir(), 'issuer-google-outbox-'));
let key: TestKeyFile;
let google: GoogleStandIn;
let ca: string;
let env: Record<string, string>;

before(async () => {
  const tls = testCertificate(dir);
  ca = tls.cert;
  google = new GoogleStandIn({ clientEmail: CLIENT_EMAIL, tls });
  await google.start();
  key = makeKeyFile(google.tokenUri);
  google.publicKey = key.publicKey;
  env = { ...key.env, GOOGLE_WALLET_API_URL: google.apiUrl };
});
after(async () => {
  await google.stop();
  key.remove();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  google.patches.length = 0;
  google.scripted.length = 0;
  google.objects.clear();
});

const issuerOn = (store: Store, worker = true) => testIssuer({ env, store, googleWallet: { ca, worker, pollMs: 20 } });

/** An event with `count` tickets, each saved to Google Wallet by its holder (the stand-in knows its object). */
async function savedTickets(issuer: TestIssuer, count: number): Promise<{ tid: string; ticket_token: string }[]> {
  const event = await adminCall<{ eid: string }>(issuer.app, 'POST', '/admin/v1/events', {
    name: 'Summer Festival',
    event_date: '2026-06-02T18:00:00Z',
  });
  const tickets = [];
  for (let i = 0; i < count; i += 1) {
    const ticket = await adminCall<{ tid: string; ticket_token: string }>(
      issuer.app,
      'POST',
      `/admin/v1/events/${event.eid}/tickets`,
      { holder_name: `Holder ${i}`, ticket_type: 'GA' },
    );
    google.objects.set(`${ISSUER_ID}.${ticket.tid}`, { state: 'ACTIVE', barcode: { value: ticket.ticket_token } });
    tickets.push(ticket);
  }
  return tickets;
}

const objectOf = (tid: string) => google.objects.get(`${ISSUER_ID}.${tid}`)!;
const pushesOf = async (issuer: TestIssuer, tid: string) => issuer.store.walletPushes.pushesOf(tid);

const pg = await postgresAvailability('Google Wallet pushes on PostgreSQL');
const backends = [
  { name: 'SQLite', skip: undefined, open: async () => new SqliteStore(join(dir, `issuer-${Date.now()}.db`)) },
  {
    name: 'PostgreSQL',
    skip: pg.skip,
    open: async () => PostgresStore.open((await freshDatabase()).url),
  },
];

for (const backend of backends) {
  const it = itUnless(backend.skip);
  describe(`Google Wallet pushes through the outbox (${backend.name})`, () => {
    it('a revoke through the admin API makes the saved object INACTIVE; a reissue replaces its barcode', async () => {
      const issuer = await issuerOn(await backend.open());
      try {
        const [revoked, reissued] = (await savedTickets(issuer, 2)) as unknown as [{ tid: string }, { tid: string }];
        await adminCall(issuer.app, 'POST', `/admin/v1/tickets/${revoked.tid}/revoke`, {});
        const fresh = await adminCall<{ ticket_token: string }>(
          issuer.app,
          'POST',
          `/admin/v1/tickets/${reissued.tid}/reissue`,
          {},
          200,
        );
        await eventually('both patches', () => google.patches.length === 2, 10_000, 25);
        await eventually(
          'both pushes done',
          async () =>
            (await Promise.all([revoked.tid, reissued.tid].map((t) => pushesOf(issuer, t)))).every(
              (list) => list.length === 1 && list[0]!.state === 'done',
            ),
          10_000,
          25,
        );
        assert.equal(objectOf(revoked.tid).state, 'INACTIVE');
        assert.deepEqual(objectOf(reissued.tid).barcode, { type: 'QR_CODE', value: fresh.ticket_token });
        assert.equal(objectOf(reissued.tid).state, 'ACTIVE');
      } finally {
        await issuer.close();
      }
    });

    it('a push waits in the store across a restart and is sent by the next instance', async () => {
      const store = await backend.open();
      const first = await issuerOn(store, false);
      const [ticket] = await savedTickets(first, 1);
      await adminCall(first.app, 'POST', `/admin/v1/tickets/${ticket!.tid}/revoke`, {});
      assert.deepEqual(
        (await pushesOf(first, ticket!.tid)).map((p) => p.state),
        ['pending'],
      );
      await first.app.close(); // the store stays: the next instance opens it as it is
      const second = await issuerOn(store);
      try {
        await second.app.ready(); // as a real start does when it listens
        await eventually('the push is sent', () => google.patches.length === 1, 10_000, 25);
        assert.equal(objectOf(ticket!.tid).state, 'INACTIVE');
      } finally {
        await second.close();
      }
    });

    it("503 is retried after the schedule's first delay; a refusal (400) is recorded failed with the reply", async () => {
      const issuer = await issuerOn(await backend.open());
      try {
        const [busy, refused] = (await savedTickets(issuer, 2)) as unknown as [{ tid: string }, { tid: string }];
        google.scripted.push({ status: 503, body: '{"error":{"code":503}}' });
        await adminCall(issuer.app, 'POST', `/admin/v1/tickets/${busy.tid}/revoke`, {});
        await eventually(
          'the retry is set',
          async () => (await pushesOf(issuer, busy.tid))[0]?.attempts === 1,
          10_000,
          25,
        );
        const [waiting] = await pushesOf(issuer, busy.tid);
        assert.equal(waiting!.state, 'pending');
        assert.equal(waiting!.last_status, 503);
        const delayS = (Date.parse(waiting!.next_attempt_at) - issuer.clock.now().getTime()) / 1000;
        assert.ok(delayS >= 9 && delayS <= 11, `first retry after 10 s ± 10 %, got ${delayS}`);
        assert.equal(objectOf(busy.tid).state, 'ACTIVE');
        issuer.clock.advance(11_000);
        await eventually(
          'the retry is sent',
          async () => (await pushesOf(issuer, busy.tid))[0]?.state === 'done',
          10_000,
          25,
        );
        assert.equal(objectOf(busy.tid).state, 'INACTIVE');

        google.scripted.push({ status: 400, body: '{"error":{"code":400,"message":"Invalid resource"}}' });
        await adminCall(issuer.app, 'POST', `/admin/v1/tickets/${refused.tid}/revoke`, {});
        await eventually(
          'the failure is recorded',
          async () => (await pushesOf(issuer, refused.tid))[0]?.state === 'failed',
          10_000,
          25,
        );
        const [failed] = await pushesOf(issuer, refused.tid);
        assert.equal(failed!.last_status, 400);
        assert.match(failed!.last_error!, /Invalid resource/);
      } finally {
        await issuer.close();
      }
    });
  });
}

describe('Google Wallet pushes with several instances (PostgreSQL)', () => {
  const it = itUnless(pg.skip);
  it('three instances on one database send each push once', async () => {
    const database = await freshDatabase();
    const stores = await Promise.all([0, 1, 2].map(() => PostgresStore.open(database.url)));
    const issuers = await Promise.all(stores.map((store) => issuerOn(store)));
    try {
      const tickets = await savedTickets(issuers[0]!, 30);
      await Promise.all(
        tickets.map((t, i) => adminCall(issuers[i % 3]!.app, 'POST', `/admin/v1/tickets/${t.tid}/revoke`, {})),
      );
      await eventually('every push sent', () => google.patches.length >= 30, 10_000, 25);
      await new Promise((resolve) => setTimeout(resolve, 300)); // room for a duplicate to show
      const sent = google.patches.map((p) => p.objectId).sort();
      assert.deepEqual(sent, tickets.map((t) => `${ISSUER_ID}.${t.tid}`).sort());
    } finally {
      await Promise.all(issuers.map((issuer) => issuer.close()));
      await database.drop();
    }
  });
});
