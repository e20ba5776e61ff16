import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileUnusedValidators } from '../../src/http/lazy-validators.ts';
import { adminCall, testIssuer } from '../helpers/app.ts';

describe('request validators compiled on first use', () => {
  it('every route request schema compiles: none is left to fail at its first request', async () => {
    const issuer = await testIssuer();
    try {
      await issuer.app.ready();
      const compiled = compileUnusedValidators(issuer.app);
      assert.ok(compiled >= 50, `every route's request schemas, not a few (${compiled})`);
      assert.equal(compileUnusedValidators(issuer.app), 0, 'each is compiled once');
    } finally {
      await issuer.close();
    }
  });

  it("a validator is compiled at its route's first request, not at start-up, and still refuses bad input", async () => {
    const untouched = await testIssuer();
    const used = await testIssuer();
    try {
      await untouched.app.ready();
      await used.app.ready();
      const bad = await used.app.inject({
        method: 'POST',
        url: '/admin/v1/events',
        headers: { authorization: `Bearer ${used.config.adminToken}` },
        payload: { name: 'Lazy', event_date: 42 },
      });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().error.code, 'INVALID_REQUEST');
      const event = await adminCall(used.app, 'POST', '/admin/v1/events', {
        name: 'Lazy',
        event_date: '2026-07-01T18:00:00.000Z',
      });
      assert.equal(event.name, 'Lazy');
      assert.ok(
        compileUnusedValidators(used.app) < compileUnusedValidators(untouched.app),
        'the answered route compiled its own validator when it was first asked',
      );
    } finally {
      await untouched.close();
      await used.close();
    }
  });
});
