import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ADMIN_TOKEN, adminCall, checkInBody, postCheckIn, T0 } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

await eachBackend('gates spelled in another case', ({ it, issuer }) => {
  const app = () => issuer().app;

  /** An event with the gate `north` (admitting the given types) and one ticket of each given type. */
  async function gatedEvent(admits: string[], types: string[]) {
    issuer().clock.set(T0);
    const { eid } = await adminCall<{ eid: string }>(app(), 'POST', '/admin/v1/events', {
      name: 'Gates',
      event_date: '2026-06-02T18:00:00Z',
    });
    const put = await app().inject({
      method: 'PUT',
      url: `/admin/v1/events/${eid}/gates/north`,
      headers: admin,
      payload: { name: 'North entrance', admits },
    });
    assert.equal(put.statusCode, 200);
    const { tickets } = await adminCall<{ tickets: { tid: string }[] }>(
      app(),
      'POST',
      `/admin/v1/events/${eid}/tickets`,
      { tickets: types.map((ticket_type) => ({ holder_name: `Holder of ${ticket_type}`, ticket_type })) },
    );
    return { eid, tids: tickets.map((t) => t.tid) };
  }

  const token = (eid: string, body: Record<string, unknown>) =>
    adminCall<{ token: string; token_id: string; gate_id: string | null; gate_declared: boolean | null }>(
      app(),
      'POST',
      `/admin/v1/events/${eid}/enrollment-tokens`,
      body,
    );

  async function enrolWith(secret: string) {
    const scannerId = randomUUID();
    const res = await app().inject({
      method: 'POST',
      url: '/api/v1/scanners/enroll',
      payload: { token: secret, scanner_id: scannerId, scanner_name: 'North phone' },
    });
    assert.equal(res.statusCode, 200);
    return { scannerId, apiKey: res.json().api_key as string, gateId: res.json().scope.gate_id as string | null };
  }

  it('a token for a declared gate in another case is stored with the declared spelling: gate_declared true', async () => {
    const { eid, tids } = await gatedEvent(['VIP'], ['GA']);
    const created = await token(eid, { gate_id: 'NORTH' });
    assert.equal(created.gate_id, 'north');
    assert.equal(created.gate_declared, true);
    const scanner = await enrolWith(created.token);
    assert.equal(scanner.gateId, 'north', "the scanner's key is scoped to the declared gate");
    // Its scanner does not bypass the gate's rules: a GA ticket is refused at north, which admits VIP.
    const res = await postCheckIn(
      app(),
      scanner.apiKey,
      checkInBody({ eid, tid: tids[0]!, scannerId: scanner.scannerId, ticketToken: '', apiKey: '', apiKeyId: '' }, T0),
    );
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json().error.details, {
      reason: 'ticket_type_not_admitted',
      gate_id: 'north',
      ticket_type: 'GA',
      holder_name: 'Holder of GA',
    });
    const listed = await adminCall<{ enrollment_tokens: { token_id: string; gate_id: string }[] }>(
      app(),
      'GET',
      `/admin/v1/events/${eid}/enrollment-tokens`,
    );
    assert.equal(listed.enrollment_tokens.find((t) => t.token_id === created.token_id)!.gate_id, 'north');
  });

  it('an undeclared gate is kept as given with gate_declared false; no gate is gate_declared null', async () => {
    const { eid } = await gatedEvent(['VIP'], ['GA']);
    const exact = await token(eid, { gate_id: 'north' });
    assert.deepEqual([exact.gate_id, exact.gate_declared], ['north', true]);
    const typo = await token(eid, { gate_id: 'nroth' });
    assert.deepEqual([typo.gate_id, typo.gate_declared], ['nroth', false]);
    for (const body of [{}, { gate_id: null }]) {
      const none = await token(eid, body);
      assert.deepEqual([none.gate_id, none.gate_declared], [null, null]);
    }
  });

  it("a gate's admits match the ticket type ignoring case and surrounding spaces", async () => {
    const { eid, tids } = await gatedEvent([' vip ', 'Staff'], ['VIP', 'staff', 'GA']);
    const scanner = await enrolWith((await token(eid, { gate_id: 'north' })).token);
    const scan = async (tid: string) =>
      postCheckIn(
        app(),
        scanner.apiKey,
        checkInBody({ eid, tid, scannerId: scanner.scannerId, ticketToken: '', apiKey: '', apiKeyId: '' }, T0),
      );
    const [vip, staff, ga] = [await scan(tids[0]!), await scan(tids[1]!), await scan(tids[2]!)];
    assert.equal(vip.json().status, 'valid');
    assert.equal(staff.json().status, 'valid');
    assert.equal(ga.statusCode, 403);
    assert.equal(ga.json().error.details.reason, 'ticket_type_not_admitted');
  });
});
