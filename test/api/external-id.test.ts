import assert from 'node:assert/strict';
import { ADMIN_TOKEN, adminCall } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';

interface Ticket {
  tid: string;
  holder_name: string;
  external_id: string | null;
}
interface Batch {
  tickets: Ticket[];
  skipped: { external_id: string; tid: string }[];
}

await eachBackend('tickets with external_id: an import made twice creates each ticket once', ({ it, issuer }) => {
  const app = () => issuer().app;
  const newEvent = async () =>
    (
      await adminCall<{ eid: string }>(app(), 'POST', '/admin/v1/events', {
        name: 'Imports',
        event_date: '2026-06-02T18:00:00Z',
      })
    ).eid;
  const post = (eid: string, payload: unknown) =>
    app().inject({
      method: 'POST',
      url: `/admin/v1/events/${eid}/tickets`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: payload as object,
    });
  const issued = async (eid: string) =>
    (await adminCall<{ counters: { issued: number } }>(app(), 'GET', `/admin/v1/events/${eid}`)).counters.issued;

  it('a single ticket carries its external_id; the same external_id again answers 200 with the existing ticket', async () => {
    const eid = await newEvent();
    const first = await post(eid, { holder_name: 'Ada Lovelace', ticket_type: 'GA', external_id: 'order-17' });
    assert.equal(first.statusCode, 201);
    assert.equal(first.json().external_id, 'order-17');
    const again = await post(eid, { holder_name: 'Someone Else', ticket_type: 'VIP', external_id: 'order-17' });
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json(), first.json(), 'the existing ticket, unchanged');
    const read = await adminCall<Ticket>(app(), 'GET', `/admin/v1/tickets/${first.json().tid}`);
    assert.equal(read.external_id, 'order-17');
    const plain = await post(eid, { holder_name: 'Alan Turing', ticket_type: 'GA' });
    assert.equal(plain.json().external_id, null, 'a ticket without one says null');
    const listed = await adminCall<{ tickets: Ticket[] }>(app(), 'GET', `/admin/v1/events/${eid}/tickets`);
    assert.deepEqual(listed.tickets.map((t) => t.external_id).sort(), ['order-17', null].sort());
    assert.equal(await issued(eid), 2);
  });

  it('a batch skips the external_ids its event holds: 201 while one is new, then 200 with every one skipped', async () => {
    const eid = await newEvent();
    const rows = ['row-1', 'row-2', 'row-3'].map((external_id, i) => ({
      holder_name: `Guest ${i}`,
      ticket_type: 'GA',
      external_id,
    }));
    const first = await adminCall<Batch>(app(), 'POST', `/admin/v1/events/${eid}/tickets`, { tickets: rows });
    assert.deepEqual(first.skipped, []);
    assert.deepEqual(
      first.tickets.map((t) => t.external_id),
      ['row-1', 'row-2', 'row-3'],
    );
    const withOneNew = [...rows, { holder_name: 'Late Guest', ticket_type: 'GA', external_id: 'row-4' }];
    const second = await adminCall<Batch>(app(), 'POST', `/admin/v1/events/${eid}/tickets`, { tickets: withOneNew });
    assert.deepEqual(
      second.tickets.map((t) => [t.holder_name, t.external_id]),
      [['Late Guest', 'row-4']],
    );
    assert.deepEqual(
      second.skipped,
      first.tickets.map((t) => ({ external_id: t.external_id, tid: t.tid })),
    );
    const third = await post(eid, { tickets: withOneNew });
    assert.equal(third.statusCode, 200, 'nothing created');
    assert.deepEqual(third.json().tickets, []);
    assert.deepEqual(
      (third.json() as Batch).skipped.map((s) => s.external_id),
      ['row-1', 'row-2', 'row-3', 'row-4'],
    );
    assert.equal(await issued(eid), 4);
  });

  it('tickets without external_id are always created, and an external_id is unique per event only', async () => {
    const eid = await newEvent();
    const other = await newEvent();
    const plain = { tickets: [{ holder_name: 'Walk-in', ticket_type: 'GA' }] };
    await adminCall(app(), 'POST', `/admin/v1/events/${eid}/tickets`, plain);
    await adminCall(app(), 'POST', `/admin/v1/events/${eid}/tickets`, plain);
    const ticket = { holder_name: 'Ada', ticket_type: 'GA', external_id: 'shared-id' };
    const mine = await adminCall<Ticket>(app(), 'POST', `/admin/v1/events/${eid}/tickets`, ticket);
    const theirs = await adminCall<Ticket>(app(), 'POST', `/admin/v1/events/${other}/tickets`, ticket);
    assert.notEqual(mine.tid, theirs.tid);
    assert.equal(await issued(eid), 3);
    assert.equal(await issued(other), 1);
  });

  it('an empty external_id, one over 100 characters, or one repeated within a request: 400 naming external_id', async () => {
    const eid = await newEvent();
    const refusals: [unknown, string][] = [
      [{ holder_name: 'A', ticket_type: 'GA', external_id: '' }, 'external_id'],
      [{ holder_name: 'A', ticket_type: 'GA', external_id: '   ' }, 'external_id'],
      [{ holder_name: 'A', ticket_type: 'GA', external_id: 'x'.repeat(101) }, 'external_id'],
      [{ tickets: [{ holder_name: 'A', ticket_type: 'GA', external_id: '' }] }, 'tickets.0.external_id'],
      [
        {
          tickets: [
            { holder_name: 'A', ticket_type: 'GA', external_id: 'dup' },
            { holder_name: 'B', ticket_type: 'GA', external_id: 'other' },
            { holder_name: 'C', ticket_type: 'GA', external_id: ' dup ' },
          ],
        },
        'tickets.2.external_id',
      ],
    ];
    for (const [payload, field] of refusals) {
      const res = await post(eid, payload);
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assert.equal(res.json().error.code, 'INVALID_REQUEST');
      assert.equal(res.json().error.details.fields[0].field, field);
    }
    assert.equal(await issued(eid), 0, 'nothing of a refused request was created');
  });

  it('two imports of the same rows at the same time create each ticket once', async () => {
    const eid = await newEvent();
    const rows = Array.from({ length: 300 }, (_, i) => ({
      holder_name: `Guest ${i}`,
      ticket_type: 'GA',
      external_id: `concurrent-${i}`,
    }));
    const answers = await Promise.all([post(eid, { tickets: rows }), post(eid, { tickets: [...rows].reverse() })]);
    const batches = answers.map((res) => res.json() as Batch);
    for (const batch of batches) assert.equal(batch.tickets.length + batch.skipped.length, 300);
    assert.equal(batches[0]!.tickets.length + batches[1]!.tickets.length, 300, 'each row created by one import');
    assert.equal(await issued(eid), 300);
    const tidOf = (batch: Batch) =>
      new Map([
        ...batch.tickets.map((t) => [t.external_id, t.tid] as const),
        ...batch.skipped.map((s) => [s.external_id, s.tid] as const),
      ]);
    assert.deepEqual(tidOf(batches[0]!), tidOf(batches[1]!), 'both answers name the same ticket for each row');
  });
});
