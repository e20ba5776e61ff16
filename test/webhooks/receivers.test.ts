/**
 * Where messages may not go, and what the log never shows: receiver URLs with an IPv4 address inside
 * IPv6 that ipaddr.js calls unicast are refused at creation and at connection, and endpoint secrets
 * (`whsec_…`) are masked in logs like the other secrets.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testIssuer, type TestIssuer } from '../helpers/app.ts';
import { isPublicAddress } from '../../src/webhooks/receiver-url.ts';
import { Transport } from '../../src/webhooks/deliver.ts';

const admin = { authorization: 'Bearer test-admin-token-0123456789abcdef' };
/** IPv6 forms that lead inside: IPv4-compatible loopback, local-use NAT64 of a private address, site-local. */
const INSIDE = ['[::127.0.0.1]', '[::7f00:1]', '[64:ff9b:1::10.0.0.1]', '[64:ff9b:1::8.8.8.8]', '[fec0::1]'];

describe('receiver URLs with IPv4 inside IPv6', () => {
  let issuer: TestIssuer;
  before(async () => {
    issuer = await testIssuer();
  });
  after(() => issuer?.close());

  it('are not public addresses, while a public IPv6 address is', () => {
    for (const address of ['::7f00:1', '::127.0.0.1', '::808:808', '64:ff9b:1::a00:1', 'fec0::1', 'feff::1']) {
      assert.equal(isPublicAddress(address), false, address);
    }
    assert.equal(isPublicAddress('2606:2800:220:1::1'), true);
  });

  it('are refused at creation with 400 naming url', async () => {
    for (const host of INSIDE) {
      const res = await issuer.app.inject({
        method: 'POST',
        url: '/admin/v1/webhooks',
        headers: admin,
        payload: { url: `https://${host}/hook`, event_types: ['*'] },
      });
      assert.equal(res.statusCode, 400, host);
      assert.equal(res.json().error.details.fields[0].field, 'url', host);
    }
  });

  it('are refused at connection: no connection is attempted', async () => {
    const transport = new Transport(false);
    try {
      for (const host of INSIDE) {
        const outcome = await transport.post(`http://${host}:9/hook`, '{}', {}, 3000);
        assert.deepEqual(
          [outcome.status_code, outcome.error],
          [null, 'address not allowed: a loopback or private network'],
          host,
        );
        assert.ok(outcome.duration_ms < 1000, `${host}: refused before any connection (${outcome.duration_ms} ms)`);
      }
    } finally {
      transport.close();
    }
  });
});

describe('endpoint secrets in logs', () => {
  let issuer: TestIssuer;
  let secret: string;
  before(async () => {
    issuer = await testIssuer({ env: { LOG_LEVEL: 'trace', WEBHOOK_ALLOW_PRIVATE: 'true' } });
    const created = await issuer.app.inject({
      method: 'POST',
      url: '/admin/v1/webhooks',
      headers: admin,
      payload: { url: 'http://127.0.0.1:9/hook', event_types: ['*'] },
    });
    secret = created.json().secret;
    // A secret pasted where no redaction path reaches: the URL (logged with every request), raw and encoded.
    await issuer.app.inject({ url: `/admin/v1/webhooks?leaked=${secret}`, headers: admin });
    await issuer.app.inject({ url: `/admin/v1/webhooks?leaked=${encodeURIComponent(secret)}`, headers: admin });
    await issuer.app.inject({ url: `/no/such/route/${encodeURIComponent(secret)}` });
  });
  after(() => issuer?.close());

  it('never show a whsec_ secret, in any spelling', () => {
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.ok(issuer.logs.text.includes('leaked=[redacted]'), 'the line carrying it was written, masked');
    for (const spelling of [secret, encodeURIComponent(secret), secret.slice('whsec_'.length, 30)]) {
      assert.equal(issuer.logs.text.includes(spelling), false, spelling.slice(0, 10));
    }
  });
});
