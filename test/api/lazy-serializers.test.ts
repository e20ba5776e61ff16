import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileUnusedSerializers } from '../../src/http/lazy-serializers.ts';
import { adminCall, testIssuer } from '../helpers/app.ts';

describe('response serializers compiled on first use', () => {
  it('every route response schema compiles: none is left to fail at its first answer', async () => {
    const issuer = await testIssuer();
    try {
      await issuer.app.ready();
      const compiled = compileUnusedSerializers(issuer.app);
      assert.ok(compiled >= 50, `every route's response schemas, not a few (${compiled})`);
      assert.equal(compileUnusedSerializers(issuer.app), 0, 'each is compiled once');
    } finally {
      await issuer.close();
    }
  });

  it("a serializer is compiled at its route's first answer, not at start-up", async () => {
    const untouched = await testIssuer();
    const used = await testIssuer();
    try {
      await untouched.app.ready();
      await used.app.ready();
      const health = await used.app.inject({ method: 'GET', url: '/healthz' });
      assert.deepEqual(JSON.parse(health.body), { status: 'ok' });
      const event = await adminCall(used.app, 'POST', '/admin/v1/events', {
        name: 'Lazy',
        event_date: '2026-07-01T18:00:00.000Z',
      });
      assert.equal(event.name, 'Lazy');
      assert.equal(
        compileUnusedSerializers(used.app),
        compileUnusedSerializers(untouched.app) - 2,
        'the two answered routes compiled their own serializer when they answered',
      );
    } finally {
      await untouched.close();
      await used.close();
    }
  });
});
