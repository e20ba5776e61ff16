import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { FixedClock } from '../../src/domain/clock.ts';
import type { App } from '../../src/http/context.ts';
import { ADMIN_TOKEN, adminCall, T0 } from '../helpers/app.ts';
import { allAudit, eachAuditBackend } from '../helpers/audit.ts';
import { twoIssuersOnOneDatabase } from '../helpers/postgres-issuers.ts';
import { itUnless, postgresAvailability } from '../helpers/services.ts';

const inject = (app: App, method: 'POST' | 'PUT' | 'GET', url: string, payload?: object) =>
  app.inject({ method, url, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, ...(payload ? { payload } : {}) });

async function eventWithTicket(app: App): Promise<{ eid: string; tid: string }> {
  const { eid } = await adminCall<{ eid: string }>(app, 'POST', '/admin/v1/events', {
    name: 'Faults',
    event_date: '2026-06-02T18:00:00Z',
  });
  const { tid } = await adminCall<{ tid: string }>(app, 'POST', `/admin/v1/events/${eid}/tickets`, {
    holder_name: 'Cy',
    ticket_type: 'GA',
  });
  return { eid, tid };
}

/** A trigger that makes every insert into `table` fail, on either database. */
function faultOn(backend: 'SQLite' | 'PostgreSQL', table: string): { plant: string; remove: string } {
  if (backend === 'SQLite') {
    return {
      plant: `CREATE TRIGGER planted_fault BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'planted fault'); END`,
      remove: 'DROP TRIGGER planted_fault',
    };
  }
  return {
    plant: `CREATE FUNCTION planted_fault() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'planted fault'; END $$;
      CREATE TRIGGER planted_fault BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION planted_fault()`,
    remove: `DROP TRIGGER planted_fault ON ${table}; DROP FUNCTION planted_fault()`,
  };
}

await eachAuditBackend('Audit entries and their changes', ({ backend, it, issuer, sql }) => {
  it(`${backend}: a change that fails in its transaction leaves no entry, and the entry's failure undoes the change`, async () => {
    const app = issuer().app;
    const { eid, tid } = await eventWithTicket(app);
    const before = await allAudit(app);
    // The revoke's feed change fails after the ticket's row changed: both roll back, no entry stays.
    const feed = faultOn(backend, 'changes');
    await sql(feed.plant);
    const failed = await inject(app, 'POST', `/admin/v1/tickets/${tid}/revoke`, {});
    await sql(feed.remove);
    assert.ok(failed.statusCode >= 500, failed.body);
    assert.equal((await adminCall<{ revoked_at: unknown }>(app, 'GET', `/admin/v1/tickets/${tid}`)).revoked_at, null);
    assert.deepEqual(await allAudit(app), before);
    // The entry's own insert fails: the change it records is undone with it, whichever path wrote it
    // (a transaction of several statements, or a single statement).
    const trail = faultOn(backend, 'audit_log');
    await sql(trail.plant);
    const revoke = await inject(app, 'POST', `/admin/v1/tickets/${tid}/revoke`, {});
    const gate = await inject(app, 'PUT', `/admin/v1/events/${eid}/gates/east`, { name: 'East', admits: null });
    await sql(trail.remove);
    assert.ok(revoke.statusCode >= 500, revoke.body);
    assert.ok(gate.statusCode >= 500, gate.body);
    assert.equal((await adminCall<{ revoked_at: unknown }>(app, 'GET', `/admin/v1/tickets/${tid}`)).revoked_at, null);
    assert.deepEqual((await adminCall<{ gates: unknown[] }>(app, 'GET', `/admin/v1/events/${eid}/gates`)).gates, []);
    assert.deepEqual(await allAudit(app), before);
    // Without the faults, each change is recorded once.
    await adminCall(app, 'POST', `/admin/v1/tickets/${tid}/revoke`, {}, 200);
    await adminCall(app, 'PUT', `/admin/v1/events/${eid}/gates/east`, { name: 'East', admits: null }, 200);
    const added = (await allAudit(app)).slice(0, -before.length || undefined);
    assert.deepEqual(
      added.map((e) => [e.action, e.target]),
      [
        ['gate.put', 'east'],
        ['ticket.revoke', tid],
      ],
    );
  });
});

const pg = await postgresAvailability('PostgreSQL audit concurrency');

describe('concurrent revokes on two PostgreSQL instances', () => {
  const it = itUnless(pg.skip);
  const issuers = twoIssuersOnOneDatabase(pg, new FixedClock(T0));

  it('revoking many tickets at once from both, some twice: exactly one entry per ticket revoked', async () => {
    const { a, b } = issuers();
    const { eid } = await adminCall<{ eid: string }>(a.app, 'POST', '/admin/v1/events', {
      name: 'Race',
      event_date: '2026-06-02T18:00:00Z',
    });
    const tickets = Array.from({ length: 60 }, (_, i) => ({ holder_name: `R${i}`, ticket_type: 'GA' }));
    const issued = await adminCall<{ tickets: { tid: string }[] }>(a.app, 'POST', `/admin/v1/events/${eid}/tickets`, {
      tickets,
    });
    const tids = issued.tickets.map((t) => t.tid);
    // Every ticket from instance a; every other one from b too, at the same moment; a third from a again.
    const revokes = tids.flatMap((tid, i) => [
      inject(a.app, 'POST', `/admin/v1/tickets/${tid}/revoke`, {}),
      ...(i % 2 === 0 ? [inject(b.app, 'POST', `/admin/v1/tickets/${tid}/revoke`, {})] : []),
      ...(i % 3 === 0 ? [inject(a.app, 'POST', `/admin/v1/tickets/${tid}/revoke`, {})] : []),
    ]);
    const answers = await Promise.all(revokes);
    assert.ok(
      answers.every((res) => res.statusCode === 200),
      answers.map((r) => r.statusCode).join(),
    );
    const entries = (await allAudit(b.app, { eid })).filter((e) => e.action === 'ticket.revoke');
    assert.equal(entries.length, tids.length, 'one entry per ticket, however often it was revoked');
    assert.deepEqual(entries.map((e) => e.target).sort(), [...tids].sort());
    assert.ok(entries.every((e) => e.eid === eid));
    const counters = await adminCall<{ counters: { revoked: number } }>(a.app, 'GET', `/admin/v1/events/${eid}`);
    assert.equal(counters.counters.revoked, tids.length);
  });
});
