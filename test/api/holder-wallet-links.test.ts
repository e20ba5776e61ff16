import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { HolderTicket } from '../../src/holder/holder-ticket.ts';
import { ADMIN_TOKEN, adminCall, testIssuer, type TestIssuer } from '../helpers/app.ts';

/**
 * CONTRACT.md, "Tickets reach their holders": the holder page links **Add to Apple Wallet** and **Add
 * to Google Wallet** only when each is configured. Here both are, as the page's option says.
 */

interface Ticket {
  tid: string;
  ticket_token: string;
  holder_url: string;
}

describe('the holder page with both wallets configured', () => {
  let t: TestIssuer;
  const asked: HolderTicket[] = [];
  before(async () => {
    t = await testIssuer({
      wallets: {
        appleWallet: true,
        googleSaveUrl: async (holder) => {
          asked.push(holder);
          return `https://pay.google.com/gp/v/save/jwt-for-${holder.ticket.tid}?a=1&b=2`;
        },
      },
    });
  });
  after(() => t.close());

  it('links Add to Apple Wallet to the pass and Add to Google Wallet to its save link, beside Download PDF', async () => {
    const { eid } = await adminCall<{ eid: string }>(t.app, 'POST', '/admin/v1/events', {
      name: 'Wallet Fest',
      event_date: '2026-06-05T10:00:00Z',
    });
    const ticket = await adminCall<Ticket>(t.app, 'POST', `/admin/v1/events/${eid}/tickets`, {
      holder_name: 'Ada',
      ticket_type: 'GA',
    });
    const path = new URL(ticket.holder_url).pathname;
    const res = await t.app.inject({ url: path });
    assert.equal(res.statusCode, 200);
    assert.ok(res.body.includes(`<a href="${path}/pass.pkpass">Add to Apple Wallet</a>`), res.body);
    assert.ok(
      res.body.includes(
        `<a href="https://pay.google.com/gp/v/save/jwt-for-${ticket.tid}?a=1&amp;b=2">Add to Google Wallet</a>`,
      ),
    );
    assert.ok(res.body.includes(`<a href="${path}/ticket.pdf">Download PDF</a>`));
    assert.equal(asked.at(-1)?.qrToken, ticket.ticket_token, 'the save link is made for the current token');
  });

  it('a revoked ticket offers no Google save link (nothing to save), and still its PDF', async () => {
    const { eid } = await adminCall<{ eid: string }>(t.app, 'POST', '/admin/v1/events', {
      name: 'Wallet Fest 2',
      event_date: '2026-06-05T10:00:00Z',
    });
    const ticket = await adminCall<Ticket>(t.app, 'POST', `/admin/v1/events/${eid}/tickets`, {
      holder_name: 'Bob',
      ticket_type: 'GA',
    });
    await t.app.inject({
      method: 'POST',
      url: `/admin/v1/tickets/${ticket.tid}/revoke`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: {},
    });
    const res = await t.app.inject({ url: new URL(ticket.holder_url).pathname });
    assert.equal(res.body.includes('Add to Google Wallet'), false);
    assert.ok(res.body.includes('Download PDF'));
  });
});
