import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testIssuer, type TestIssuer } from '../helpers/app.ts';

describe('GET /: the issuer’s own address', () => {
  let t: TestIssuer;
  before(async () => {
    t = await testIssuer();
  });
  after(() => t.close());

  it('leads an organizer to the console (302 to /console/)', async () => {
    const res = await t.app.inject({ url: '/' });
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, '/console/');
  });

  it('is not part of the API: neither OpenAPI document lists it', async () => {
    for (const url of ['/openapi.json', '/docs/json']) {
      const paths = Object.keys((await t.app.inject({ url })).json().paths as Record<string, unknown>);
      assert.ok(paths.length > 10, `${url} lists the API`);
      assert.equal(paths.includes('/'), false, url);
    }
  });
});
