import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { scenario, T0, testIssuer, type TestIssuer } from '../helpers/app.ts';

/**
 * The rules answer shares the undo window and the issuer's clock with devices: they judge an offline
 * undo by the issuer's ANNUL_WINDOW_S, and can tell how far off their own clock is.
 */
describe('the rules answer carries the issuer’s undo window and clock', () => {
  let t: TestIssuer;
  before(async () => {
    t = await testIssuer({ env: { ANNUL_WINDOW_S: '60' } });
  });
  after(() => t.close());

  const rules = async (eid: string, apiKey: string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/events/${eid}/rules`,
      headers: { authorization: `Bearer ${apiKey}` },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { annul_window_s: number; server_time: string };
  };

  it('annul_window_s is ANNUL_WINDOW_S; server_time is the issuer’s clock, ISO 8601 UTC', async () => {
    const { eid, apiKey } = await scenario(t.app);
    t.clock.set(T0);
    const answer = await rules(eid, apiKey);
    assert.deepEqual([answer.annul_window_s, answer.server_time], [60, '2026-06-01T12:00:00Z']);
    // The clock moved: the answer follows it, to the millisecond.
    t.clock.set('2026-06-01T12:34:56.789Z');
    assert.equal((await rules(eid, apiKey)).server_time, '2026-06-01T12:34:56.789Z');
  });

  it('without ANNUL_WINDOW_S the answer says the default, 900', async () => {
    const plain = await testIssuer();
    try {
      const { eid, apiKey } = await scenario(plain.app);
      const res = await plain.app.inject({
        method: 'GET',
        url: `/api/v1/events/${eid}/rules`,
        headers: { authorization: `Bearer ${apiKey}` },
      });
      assert.equal(res.json().annul_window_s, 900);
    } finally {
      await plain.close();
    }
  });

  it('the OpenAPI document names both fields, required, beside the event’s rules', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const answer = doc.paths['/api/v1/events/{eid}/rules'].get.responses['200'].content['application/json'].schema;
    assert.equal(answer.$ref, '#/components/schemas/ScannerRulesAnswer');
    const [rulesPart, issuerPart] = doc.components.schemas.ScannerRulesAnswer.allOf;
    assert.equal(rulesPart.$ref, '#/components/schemas/ScannerRules');
    assert.deepEqual(issuerPart.required, ['annul_window_s', 'server_time']);
    assert.equal(issuerPart.properties.annul_window_s.type, 'integer');
    assert.equal(issuerPart.properties.server_time.type, 'string');
  });
});
