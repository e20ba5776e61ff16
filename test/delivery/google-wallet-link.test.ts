import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { GOOGLE_SAVE_URL, GoogleWalletLinks, walletIdSuffix } from '../../src/delivery/google-wallet.ts';
import type { EventRecord } from '../../src/store/event-records.ts';
import type { TicketRecord } from '../../src/store/ticket-records.ts';
import { adminCall, BASE_URL, T0, type TestIssuer, testIssuer } from '../helpers/app.ts';
import { CLIENT_EMAIL, ISSUER_ID, makeKeyFile } from '../helpers/google-key.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const key = makeKeyFile('https://oauth2.googleapis.com/token');
let issuer: TestIssuer;
let links: GoogleWalletLinks;
let event: EventRecord;
let ticket: TicketRecord;

before(async () => {
  issuer = await testIssuer({ env: { ...key.env, ISSUER_NAME: 'Harbour Festivals' } });
  links = new GoogleWalletLinks(issuer.config.googleWallet!);
  const created = await adminCall<{ eid: string }>(issuer.app, 'POST', '/admin/v1/events', {
    name: 'Summer Festival',
    event_date: '2026-06-02T18:00:00Z',
    ends_at: '2026-06-04T23:00:00Z',
  });
  const issued = await adminCall<{ tid: string }>(issuer.app, 'POST', `/admin/v1/events/${created.eid}/tickets`, {
    holder_name: 'Ada Lovelace',
    ticket_type: 'Weekend pass',
    valid_from: '2026-06-02T16:00:00Z',
  });
  event = (await issuer.store.events.getEvent(created.eid))!;
  ticket = (await issuer.store.tickets.getTicket(issued.tid))!;
});
after(async () => {
  await issuer.close();
  key.remove();
});

const input = () => ({ ticket, event, baseUrl: BASE_URL, issuerName: 'Harbour Festivals', now: new Date(T0) });

/** The link's JWT, its signature checked with the public half of the key file's key. */
async function verified(link: string) {
  assert.ok(link.startsWith(GOOGLE_SAVE_URL), link);
  const jwt = link.slice(GOOGLE_SAVE_URL.length);
  assert.match(jwt, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  const { payload } = await jwtVerify(jwt, key.publicKey, {
    algorithms: ['RS256'],
    audience: 'google',
    issuer: CLIENT_EMAIL,
  });
  return { payload: payload as Json, header: decodeProtectedHeader(jwt) };
}

/** The holder page of the ticket, through the app; its path from the admin API's holder_url. */
async function holderPage(): Promise<string> {
  const { holder_url } = await adminCall<{ holder_url: string }>(issuer.app, 'GET', `/admin/v1/tickets/${ticket.tid}`);
  const res = await issuer.app.inject({ url: new URL(holder_url).pathname });
  assert.equal(res.statusCode, 200);
  return res.body;
}

const googleHref = (html: string) =>
  /<a href="([^"]+)">Add to Google Wallet<\/a>/.exec(html)?.[1]?.replace(/&amp;/g, '&') ?? null;

describe('Add to Google Wallet: the save link', () => {
  it('the holder page links to it while the ticket is valid; the link carries the current token', async () => {
    const href = googleHref(await holderPage());
    assert.ok(href !== null, 'the page offers Add to Google Wallet');
    const { payload } = await verified(href);
    const current = (await issuer.store.tickets.getTicket(ticket.tid))!;
    assert.equal(payload.payload.eventTicketObjects[0].id, `${ISSUER_ID}.${ticket.tid}`);
    assert.equal(payload.payload.eventTicketObjects[0].barcode.value, current.ticket_token);
  });

  it('is https://pay.google.com/gp/v/save/<jwt>, RS256 by the key file, iss its client_email, aud google, typ savetowallet, origins [BASE_URL], iat', async () => {
    const { payload, header } = await verified((await links.saveLink(input()))!);
    assert.equal(header.alg, 'RS256');
    assert.equal(header.kid, 'a1b2c3d4e5f6');
    assert.equal(payload.iss, CLIENT_EMAIL);
    assert.equal(payload.aud, 'google');
    assert.equal(payload.typ, 'savetowallet');
    assert.deepEqual(payload.origins, [BASE_URL]);
    assert.equal(payload.iat, Date.parse(T0) / 1000);
  });

  it('carries the ticket as eventTicketObjects[0]: ids by issuer id, ACTIVE, the current token as its QR code, holder, type, validity', async () => {
    const { payload } = await verified((await links.saveLink(input()))!);
    assert.equal(payload.payload.eventTicketObjects.length, 1);
    assert.deepEqual(payload.payload.eventTicketObjects[0], {
      id: `${ISSUER_ID}.${ticket.tid}`,
      classId: `${ISSUER_ID}.${event.eid}`,
      state: 'ACTIVE',
      barcode: { type: 'QR_CODE', value: ticket.ticket_token },
      ticketHolderName: 'Ada Lovelace',
      ticketType: { defaultValue: { language: 'en', value: 'Weekend pass' } },
      validTimeInterval: { start: { date: ticket.valid_from } },
    });
  });

  it('describes the event as eventTicketClasses[0]: id, issuer name, localized event name, its dates, UNDER_REVIEW', async () => {
    const { payload } = await verified((await links.saveLink(input()))!);
    assert.equal(payload.payload.eventTicketClasses.length, 1);
    const eventClass = payload.payload.eventTicketClasses[0];
    assert.equal(eventClass.id, `${ISSUER_ID}.${event.eid}`);
    assert.equal(eventClass.issuerName, 'Harbour Festivals');
    assert.deepEqual(eventClass.eventName, { defaultValue: { language: 'en', value: 'Summer Festival' } });
    assert.deepEqual(eventClass.dateTime, { start: event.event_date, end: event.ends_at });
    assert.equal(eventClass.reviewStatus, 'UNDER_REVIEW');
  });

  it('ids fit what Google allows: the issuer ids pass as they are, anything else is mapped, one to one', () => {
    const allowed = /^[A-Za-z0-9._-]+$/;
    assert.equal(walletIdSuffix(ticket.tid), ticket.tid);
    assert.equal(walletIdSuffix(event.eid), event.eid);
    const odd = ['row 7/seat 3', 'ä', 'a.b', 'u.YQ', 'a+b', 'a b'];
    const mapped = odd.map(walletIdSuffix);
    for (const id of mapped) assert.match(id, allowed);
    assert.equal(
      new Set([...mapped, ...odd.filter((id) => allowed.test(id) && !id.includes('.'))]).size,
      mapped.length,
    );
  });

  it('follows the ticket: a reissue puts the new token in the next link; a revoked ticket gets no link', async () => {
    const reissued = await adminCall<{ ticket_token: string }>(
      issuer.app,
      'POST',
      `/admin/v1/tickets/${ticket.tid}/reissue`,
      {},
      200,
    );
    const current = (await issuer.store.tickets.getTicket(ticket.tid))!;
    const { payload } = await verified((await links.saveLink({ ...input(), ticket: current }))!);
    assert.equal(payload.payload.eventTicketObjects[0].barcode.value, reissued.ticket_token);
    assert.notEqual(reissued.ticket_token, ticket.ticket_token);
    await adminCall(issuer.app, 'POST', `/admin/v1/tickets/${ticket.tid}/revoke`, {});
    const revoked = (await issuer.store.tickets.getTicket(ticket.tid))!;
    assert.equal(await links.saveLink({ ...input(), ticket: revoked }), null);
    const page = await holderPage();
    assert.match(page, /Revoked/);
    assert.equal(googleHref(page), null, "a revoked ticket's page has no Google Wallet link");
  });
});
