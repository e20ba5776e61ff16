import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { type Action, PERMISSIONS, type Role } from '../../src/domain/roles.ts';
import { ROUTE_ACTIONS } from '../../src/http/route-actions.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { testIssuer, type TestIssuer } from '../helpers/app.ts';
import { type Person, personWithRole, signIn } from '../helpers/people.ts';
import { CASES, type Fixture, matrixFixture } from '../helpers/role-matrix-cases.ts';
import { freshDatabase, itUnless, postgresAvailability } from '../helpers/services.ts';

/**
 * What each role may do, written from CONTRACT.md ("People, roles and the audit trail") rather than
 * read from the table under test: an owner everything; a manager everything but people; a supervisor,
 * on its events, reads everything, revokes tickets, enrolment tokens and scanner keys, annuls and
 * makes enrolment tokens; a viewer reads its events, but not a ticket's token or QR code. Everyone
 * lists their events and keeps their own personal tokens. Signing keys and webhooks belong to no event:
 * managers and owners only (decisions.md). An action a role may do, asked on an event outside the
 * person's list, is the 404 of an unknown id; one the role may never do is 403.
 */
const EVERY_ACTION = Object.keys(PERMISSIONS) as Action[];
const READS: Action[] = [
  'event.read',
  'gate.read',
  'ticket_type.read',
  'ticket.read',
  'enrollment_token.read',
  'scanner.read',
  'scan.read',
  'delivery.read',
  'report.read',
];
const AT_THE_GATE: Action[] = [
  'ticket_token.read',
  'ticket.revoke',
  'enrollment_token.create',
  'enrollment_token.revoke',
  'api_key.revoke',
  'scan.annul',
  'delivery.send',
];
const EVERYONE: Action[] = ['event.list', 'api_token.read', 'api_token.create', 'api_token.delete'];
const CONTRACT: Record<Role, { anywhere: Action[]; onItsEvents: Action[] }> = {
  owner: { anywhere: EVERY_ACTION, onItsEvents: [] },
  manager: { anywhere: EVERY_ACTION.filter((a) => !a.startsWith('user.')), onItsEvents: [] },
  supervisor: { anywhere: EVERYONE, onItsEvents: [...READS, ...AT_THE_GATE] },
  viewer: { anywhere: EVERYONE, onItsEvents: READS },
};

/** The people under test: owners and managers on every event, supervisors and viewers on event A only. */
const SCOPED: Record<Role, boolean> = { owner: false, manager: false, supervisor: true, viewer: true };

const GUARDED = Object.entries(ROUTE_ACTIONS).filter(
  (entry): entry is [string, Action] => entry[1] !== 'public' && entry[1] !== 'session',
);

interface Backend {
  name: string;
  skip: string | undefined;
  open: () => Promise<{ store: Store; drop?: () => Promise<void> }>;
}

const pg = await postgresAvailability('the role matrix on PostgreSQL');
const BACKENDS: Backend[] = [
  { name: 'SQLite', skip: undefined, open: async () => ({ store: new SqliteStore(':memory:') }) },
  {
    name: 'PostgreSQL',
    skip: pg.skip,
    open: async () => {
      const database = await freshDatabase();
      return { store: await PostgresStore.open(database.url), drop: database.drop };
    },
  },
];

for (const backend of BACKENDS) {
  describe(`the role matrix: every admin operation, each role, its events only (${backend.name})`, () => {
    const it = itUnless(backend.skip);
    let t: TestIssuer;
    let drop: (() => Promise<void>) | undefined;
    let fx: Fixture;
    const people = {} as Record<Role, Person>;
    /** Reads of the event a ticket, token or key belongs to: the role check's only store round trip. */
    let eventReads = 0;

    before(async () => {
      if (backend.skip !== undefined) return;
      const opened = await backend.open();
      drop = opened.drop;
      const eventOf = opened.store.events.eventOf.bind(opened.store.events);
      opened.store.events.eventOf = async (resource, id) => {
        eventReads += 1;
        return eventOf(resource, id);
      };
      t = await testIssuer({ store: opened.store, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
      fx = await matrixFixture(t.app);
      for (const role of ['owner', 'manager', 'supervisor', 'viewer'] as const) {
        people[role] = await personWithRole(t.app, role, SCOPED[role] ? [fx.events.A.eid] : null);
      }
    });
    after(async () => {
      await t?.close();
      await drop?.();
    });

    it('has a case for every guarded operation', () => {
      assert.deepEqual(
        GUARDED.map(([operationId]) => operationId).filter((id) => !(id in CASES)),
        [],
      );
    });

    for (const role of ['owner', 'manager', 'supervisor', 'viewer'] as const) {
      it(`${role}: allowed exactly what the contract says${SCOPED[role] ? ', on event A only' : ''}`, async () => {
        const person = people[role];
        const problems: string[] = [];
        for (const [operationId, action] of GUARDED) {
          const onEvents = PERMISSIONS[action].reach === 'event' ? (['A', 'B'] as const) : (['A'] as const);
          for (const name of onEvents) {
            const call = await CASES[operationId]!(fx, fx.events[name].eid, person);
            const res = await t.app.inject({
              method: call.method,
              url: call.url,
              headers: call.headers ?? person.headers,
              ...(call.payload ? { payload: call.payload } : {}),
            });
            const expected = CONTRACT[role];
            const onItsEvent = !SCOPED[role] || name === 'A';
            const byRole = expected.anywhere.includes(action) || expected.onItsEvents.includes(action);
            const allowed = expected.anywhere.includes(action) || (expected.onItsEvents.includes(action) && onItsEvent);
            const where = `${operationId} (${action}) on event ${name}`;
            if (allowed && res.statusCode !== call.status) {
              problems.push(`${where}: expected ${call.status}, got ${res.statusCode} ${res.body.slice(0, 200)}`);
            }
            if (!allowed && byRole) {
              const code = res.statusCode === 404 ? res.json().error.code : undefined;
              if (code !== 'NOT_FOUND') problems.push(`${where}: expected 404, got ${res.statusCode} ${res.body}`);
            }
            if (!byRole) {
              const reason = res.statusCode === 403 ? res.json().error.details.reason : undefined;
              if (reason !== 'role') problems.push(`${where}: expected 403 role, got ${res.statusCode} ${res.body}`);
            }
          }
        }
        assert.deepEqual(problems, []);
      });
    }

    it('a supervisor or viewer lists only its events; owners and managers list them all', async () => {
      const list = async (role: Role, query = '') =>
        (await t.app.inject({ url: `/admin/v1/events${query}`, headers: people[role].headers })).json() as {
          events: { eid: string }[];
          has_more: boolean;
        };
      for (const role of ['supervisor', 'viewer'] as const) {
        assert.deepEqual(
          (await list(role)).events.map((e) => e.eid),
          [fx.events.A.eid],
        );
        const page = await list(role, '?limit=1');
        assert.deepEqual([page.events.length, page.has_more], [1, false]);
      }
      for (const role of ['owner', 'manager'] as const) {
        const eids = (await list(role, '?limit=1000')).events.map((e) => e.eid);
        assert.ok(eids.includes(fx.events.A.eid) && eids.includes(fx.events.B.eid), role);
      }
    });

    it('an unknown ticket, token or key answers 404 as its route would; a role that may never act, 403 first', async () => {
      const call = (role: Role, method: 'GET' | 'POST', url: string) =>
        t.app.inject({ method, url, headers: people[role].headers, ...(method === 'POST' ? { payload: {} } : {}) });
      for (const url of [
        '/admin/v1/tickets/01J0000000000000000000000Z/revoke',
        '/admin/v1/enrollment-tokens/set_01J0000000000000000000000Z/revoke',
        '/admin/v1/api-keys/sck_01J0000000000000000000000Z/revoke',
      ]) {
        const supervisor = await call('supervisor', 'POST', url);
        assert.equal(supervisor.statusCode, 404, `${url}: ${supervisor.body}`);
        const viewer = await call('viewer', 'POST', url);
        assert.equal(viewer.statusCode, 403, url);
        assert.equal(viewer.json().error.details.reason, 'role');
      }
      assert.equal((await call('viewer', 'GET', '/admin/v1/tickets/01J0000000000000000000000Z')).statusCode, 404);
    });

    it('the role check reads the store only for a person limited to some events', async () => {
      const revoke = (role: Role) =>
        t.app.inject({
          method: 'POST',
          url: `/admin/v1/tickets/${fx.events.A.tid}/revoke`,
          headers: people[role].headers,
          payload: {},
        });
      const before = eventReads;
      assert.equal((await revoke('owner')).statusCode, 200);
      assert.equal((await revoke('manager')).statusCode, 200);
      assert.equal(eventReads, before, 'no read for owners and managers');
      assert.equal((await revoke('supervisor')).statusCode, 200);
      assert.equal(eventReads, before + 1);
      assert.equal((await revoke('viewer')).statusCode, 403);
      assert.equal(eventReads, before + 1, 'a role that may never revoke is refused before any read');
    });

    it("a person's console session is judged the same, before the body is read", async () => {
      const session = await signIn(t.app, people.viewer.email);
      const refused = await t.app.inject({
        method: 'POST',
        url: `/admin/v1/events/${fx.events.A.eid}/tickets`,
        headers: session,
        payload: { not_a_field: true },
      });
      assert.equal(refused.statusCode, 403, refused.body);
      assert.deepEqual(refused.json().error.details, { reason: 'role', action: 'ticket.create', role: 'viewer' });
      const read = await t.app.inject({ url: `/admin/v1/events/${fx.events.B.eid}`, headers: session });
      assert.equal(read.statusCode, 404, 'another event: as unknown as an eid that names none');
      assert.equal(read.json().error.code, 'NOT_FOUND');
    });
  });
}
