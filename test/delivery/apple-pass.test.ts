import assert from 'node:assert/strict';
import { after } from 'node:test';
import { adminCall, scenario } from '../helpers/app.ts';
import { makeAppleFiles, PASS_TYPE_ID, TEAM_ID } from '../helpers/apple-certs.ts';
import { expectedPassToken, fetchPass, openPass, signatureCertificates } from '../helpers/apple-pass.ts';
import { eachBackend } from '../helpers/backends.ts';

const files = makeAppleFiles();
after(() => files.remove());

await eachBackend(
  'an Apple Wallet pass as PassKit documents it',
  ({ it, issuer }) => {
    it('is a .pkpass whose manifest lists the SHA-1 of every file and whose signature verifies against the WWDR root', async () => {
      const { app } = issuer();
      const s = await scenario(app);
      const res = await fetchPass(app, s.tid);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-type'], 'application/vnd.apple.pkpass');
      assert.match(String(res.headers['last-modified']), /^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$/);
      const pass = openPass(res.rawPayload, files.wwdr);
      for (const icon of ['icon.png', 'icon@2x.png']) {
        assert.ok(pass.files[icon]!.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10])), icon);
      }
      const subjects = signatureCertificates(pass.files.signature!);
      assert.ok(
        subjects.some((line) => line.includes('Test WWDR')),
        'the WWDR certificate is included',
      );
      assert.ok(
        subjects.some((line) => line.includes(PASS_TYPE_ID)),
        'the pass certificate is included',
      );
    });

    it('pass.json carries the ticket, its token as the QR code and the web service', async () => {
      const { app } = issuer();
      const s = await scenario(app);
      const json = openPass((await fetchPass(app, s.tid)).rawPayload, files.wwdr).passJson;
      assert.equal(json.formatVersion, 1);
      assert.equal(json.passTypeIdentifier, PASS_TYPE_ID);
      assert.equal(json.teamIdentifier, TEAM_ID);
      assert.equal(json.serialNumber, s.tid);
      assert.equal(json.organizationName, 'Ticket Issuer');
      assert.equal(json.description, 'Ticket for Summer Festival');
      assert.equal(json.webServiceURL, 'https://issuer.test/wallet/apple');
      assert.equal(json.authenticationToken, expectedPassToken(s.tid));
      assert.ok(String(json.authenticationToken).length >= 16);
      assert.equal(Date.parse(String(json.relevantDate)), Date.parse('2026-06-02T18:00:00Z'));
      assert.deepEqual(json.barcodes, [
        { format: 'PKBarcodeFormatQR', message: s.ticketToken, messageEncoding: 'iso-8859-1' },
      ]);
      assert.equal(json.voided, undefined);
      const ticket = json.eventTicket as Record<string, { key: string; value: string }[]>;
      const fields = Object.fromEntries(
        [...ticket.primaryFields!, ...ticket.secondaryFields!, ...ticket.auxiliaryFields!].map((f) => [f.key, f.value]),
      );
      assert.equal(fields.event, 'Summer Festival');
      assert.equal(fields.holder, 'Ada Lovelace');
      assert.equal(fields.type, 'GA');
      // The event's zone is UTC unless set: 18:00 there.
      assert.equal(fields.date, 'Tue, 2 Jun 2026, 18:00 (UTC)');
    });

    it("the date is the event's local time in its zone", async () => {
      const { app } = issuer();
      const s = await scenario(app);
      await adminCall(app, 'PATCH', `/admin/v1/events/${s.eid}`, { timezone: 'America/New_York' });
      const json = openPass((await fetchPass(app, s.tid)).rawPayload, files.wwdr).passJson;
      const aux = (json.eventTicket as { auxiliaryFields: { value: string }[] }).auxiliaryFields;
      assert.equal(aux[0]!.value, 'Tue, 2 Jun 2026, 14:00 (America/New_York)');
    });

    it('the authentication token is the same at every rebuild, and another for every ticket', async () => {
      const { app } = issuer();
      const a = await scenario(app);
      const b = await scenario(app);
      const first = openPass((await fetchPass(app, a.tid)).rawPayload, files.wwdr).passJson;
      await adminCall(app, 'PATCH', `/admin/v1/tickets/${a.tid}`, { checkin_text: 'Wheelchair' });
      const again = openPass((await fetchPass(app, a.tid)).rawPayload, files.wwdr).passJson;
      const other = openPass((await fetchPass(app, b.tid)).rawPayload, files.wwdr).passJson;
      assert.equal(first.authenticationToken, again.authenticationToken);
      assert.notEqual(first.authenticationToken, other.authenticationToken);
      assert.ok(!String(first.authenticationToken).includes(a.tid));
    });

    it("the holder's link serves the pass, and the holder page offers it", async () => {
      const { app } = issuer();
      const s = await scenario(app);
      const ticket = await adminCall<{ holder_url: string }>(app, 'GET', `/admin/v1/tickets/${s.tid}`);
      const path = new URL(ticket.holder_url).pathname;
      const res = await app.inject({ method: 'GET', url: `${path}/pass.pkpass` });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-type'], 'application/vnd.apple.pkpass');
      assert.ok(res.headers['last-modified']);
      assert.equal(openPass(res.rawPayload, files.wwdr).passJson.serialNumber, s.tid);
      const page = await app.inject({ method: 'GET', url: path });
      assert.match(page.body, new RegExp(`href="${path}/pass\\.pkpass"[^>]*>Add to Apple Wallet`));
      const unknown = await app.inject({ method: 'GET', url: '/t/AAAAAAAAAAAAAAAAAAAAAA/pass.pkpass' });
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.json().error.code, 'NOT_FOUND');
      const malformed = await app.inject({ method: 'GET', url: '/t/not-a-token/pass.pkpass' });
      assert.equal(malformed.statusCode, 404);
    });

    it('signatures run on a bounded pool: passes asked for while it is full get 503 with Retry-After', async () => {
      const { app } = issuer();
      const tickets = [];
      for (let i = 0; i < 8; i += 1) tickets.push(await scenario(app));
      const answers = await Promise.all(tickets.map((s) => fetchPass(app, s.tid)));
      const busy = answers.filter((res) => res.statusCode === 503);
      assert.ok(busy.length >= 1, answers.map((res) => res.statusCode).join(' '));
      for (const res of busy) {
        assert.equal(res.headers['retry-after'], '1');
        assert.equal(res.json().error.code, 'UNAVAILABLE');
      }
      assert.ok(answers.every((res) => res.statusCode === 200 || res.statusCode === 503));
      // Once the pool is free, each of them is served.
      for (const s of tickets) assert.equal((await fetchPass(app, s.tid)).statusCode, 200);
    });

    it('a reissued ticket carries its new token; a revoked one is voided', async () => {
      const { app } = issuer();
      const s = await scenario(app);
      const reissued = await adminCall<{ ticket_token: string }>(
        app,
        'POST',
        `/admin/v1/tickets/${s.tid}/reissue`,
        {},
        200,
      );
      const json = openPass((await fetchPass(app, s.tid)).rawPayload, files.wwdr).passJson;
      assert.equal((json.barcodes as { message: string }[])[0]!.message, reissued.ticket_token);
      await adminCall(app, 'POST', `/admin/v1/tickets/${s.tid}/revoke`, { reason: 'refund' });
      const voided = openPass((await fetchPass(app, s.tid)).rawPayload, files.wwdr).passJson;
      assert.equal(voided.voided, true);
    });
  },
  { env: files.env },
);
