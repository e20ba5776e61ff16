import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testIssuer, type TestIssuer } from '../helpers/app.ts';

describe('the console’s files at /console/', () => {
  let issuer: TestIssuer;
  before(async () => {
    issuer = await testIssuer();
  });
  after(async () => issuer.close());
  const get = (url: string) => issuer.app.inject({ method: 'GET', url });

  it('/console/ is the console page, with a CSP allowing only the issuer’s own scripts and no framing', async () => {
    const res = await get('/console/');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /text\/html/);
    assert.match(res.body, /<script type="module" src="js\/main.js">/);
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /img-src 'self' data:/);
    assert.match(csp, /connect-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
  });

  it('/console redirects to /console/', async () => {
    const res = await get('/console');
    assert.ok([301, 302, 308].includes(res.statusCode), String(res.statusCode));
    assert.equal(res.headers.location, '/console/');
  });

  it('uPlot and Papa Parse come from the issuer itself', async () => {
    for (const file of ['uPlot.esm.js', 'uPlot.min.css', 'papaparse.min.js']) {
      const res = await get(`/console/vendor/${file}`);
      assert.equal(res.statusCode, 200, file);
      assert.ok(res.body.length > 1000, file);
    }
  });

  it('nothing else of node_modules or the repository is served', async () => {
    for (const url of [
      '/console/vendor/package.json',
      '/console/vendor/..%2F..%2Fpackage.json',
      '/console/../package.json',
      '/console/%2e%2e/package.json',
    ]) {
      const res = await get(url);
      assert.ok([400, 403, 404].includes(res.statusCode), `${url}: ${res.statusCode}`);
      assert.doesNotMatch(res.body, /"dependencies"/);
    }
  });

  it('the API keeps its own CSP (default-src none)', async () => {
    const res = await get('/.well-known/ticket-issuer.json');
    assert.match(String(res.headers['content-security-policy']), /default-src 'none'/);
    assert.doesNotMatch(String(res.headers['content-security-policy']), /script-src 'self'/);
  });
});
