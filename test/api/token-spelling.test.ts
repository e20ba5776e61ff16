import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkInBody, postCheckIn, scenario, testIssuer } from '../helpers/app.ts';

const NOW = '2026-06-01T12:00:00Z';
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('a ticket token has one spelling', () => {
  it('a non-canonical spelling of a genuine signature is invalid_signature; the canonical one is valid', async () => {
    const t = await testIssuer();
    const s = await scenario(t.app);
    const [header, payload, signature] = s.ticketToken.split('.') as [string, string, string];
    // The last character of a 64-byte signature carries 2 bits and 4 unused ones: setting an unused bit
    // decodes to the same bytes, so a lenient decoder would accept this twin of the real token.
    const last = B64URL.indexOf(signature.at(-1)!);
    const twin = `${header}.${payload}.${signature.slice(0, -1)}${B64URL[last + 1]}`;
    assert.deepEqual(Buffer.from(twin.split('.')[2]!, 'base64url'), Buffer.from(signature, 'base64url'));
    const scan = (token: string) => postCheckIn(t.app, s.apiKey, checkInBody(s, NOW, { ticket_token: token }));
    const refused = await scan(twin);
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.json().status, 'invalid_signature');
    assert.equal((await scan(`${s.ticketToken}.`)).json().status, 'invalid_signature');
    assert.equal((await scan(s.ticketToken)).json().status, 'valid');
    await t.close();
  });
});
