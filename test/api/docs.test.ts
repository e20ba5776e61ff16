import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testIssuer, type TestIssuer } from '../helpers/app.ts';

/** The URLs a page loads by itself: its scripts, stylesheets and icons. */
function assetsOf(html: string): string[] {
  return [...html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
}

describe('the API reference page (/docs), served by the issuer itself', () => {
  let t: TestIssuer;
  before(async () => {
    t = await testIssuer();
  });
  after(() => t.close());

  it('answers 200 HTML, and every script, stylesheet and icon it loads answers 200 from the issuer', async () => {
    for (const page of ['/docs', '/docs/']) {
      const res = await t.app.inject({ url: page });
      assert.equal(res.statusCode, 200, page);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      const assets = assetsOf(res.body);
      assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), 'scripts and styles');
      for (const asset of assets) {
        assert.ok(!/^(https?:)?\/\//.test(asset), `${asset} comes from the issuer, not a CDN`);
        const url = new URL(asset, `http://issuer${page}`).pathname;
        const loaded = await t.app.inject({ url });
        assert.equal(loaded.statusCode, 200, url);
      }
    }
    // The document the page shows: the same one as /openapi.json.
    const json = await t.app.inject({ url: '/docs/json' });
    assert.equal(json.statusCode, 200);
    assert.equal(json.json().paths['/api/v1/tickets/check-in'].post.operationId, 'checkInTicket');
    const initializer = await t.app.inject({ url: '/docs/static/swagger-initializer.js' });
    assert.match(initializer.body, /validatorUrl: null/, 'no badge from validator.swagger.io');
  });

  it('"Try it out" calls the issuer at the address the page was opened at; /openapi.json keeps BASE_URL', async () => {
    const atLan = await t.app.inject({ url: '/docs/json', headers: { host: '192.168.1.20:8443' } });
    assert.deepEqual(
      atLan.json().servers.map((server: { url: string }) => server.url),
      ['/', 'https://issuer.test'],
    );
    const document = await t.app.inject({ url: '/openapi.json', headers: { host: '192.168.1.20:8443' } });
    assert.deepEqual(
      document.json().servers.map((server: { url: string }) => server.url),
      ['https://issuer.test'],
    );
  });

  it('its CSP lets it run its own scripts and styles, on /docs only: the API keeps default-src none', async () => {
    for (const url of ['/docs', '/docs/static/swagger-ui-bundle.js']) {
      const csp = (await t.app.inject({ url })).headers['content-security-policy'] as string;
      assert.match(csp, /script-src 'self'(;|$)/, `${url}: ${csp}`);
      assert.match(csp, /style-src 'self' 'unsafe-inline'/);
      assert.match(csp, /connect-src 'self' https:\/\/issuer\.test/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /unsafe-eval|https:\/\/(?!issuer\.test)|\*/);
    }
    for (const url of ['/.well-known/ticket-issuer.json', '/openapi.json', '/docs-nope']) {
      const csp = (await t.app.inject({ url })).headers['content-security-policy'];
      assert.equal(csp, "default-src 'none';frame-ancestors 'none'", url);
    }
  });
});
