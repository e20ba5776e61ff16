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

  it('a path under /console/ (or /scan/) that names no file is 404 NOT_FOUND in the envelope, not 405', async () => {
    const missing = [
      '/console/nope.js',
      '/console/js/nope.js',
      '/console/css/',
      '/console/js/__proto__',
      '/scan/nope.js',
      '/scan/__proto__',
      // Names of Object.prototype's members: a lookup in a plain object must not find them.
      ...['__proto__', 'constructor', 'toString', 'hasOwnProperty'].flatMap((name) => [
        `/console/${name}`,
        `/console/vendor/${name}`,
      ]),
    ];
    for (const url of missing) {
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await issuer.app.inject({ method, url });
        assert.equal(res.statusCode, 404, `${method} ${url}: ${res.statusCode} ${res.body}`);
        if (method === 'GET') assert.equal(res.json().error.code, 'NOT_FOUND', url);
      }
    }
  });

  it('a method the console does not answer is still 405 with Allow', async () => {
    const res = await issuer.app.inject({ method: 'POST', url: '/console/index.html' });
    assert.equal(res.statusCode, 405);
    assert.equal(res.headers.allow, 'GET, HEAD');
    assert.equal(res.json().error.code, 'INVALID_REQUEST');
  });

  it('the API keeps its own CSP (default-src none)', async () => {
    const res = await get('/.well-known/ticket-issuer.json');
    assert.match(String(res.headers['content-security-policy']), /default-src 'none'/);
    assert.doesNotMatch(String(res.headers['content-security-policy']), /script-src 'self'/);
  });
});
