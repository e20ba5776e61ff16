import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { App } from '../../src/http/context.ts';
import { ADMIN_TOKEN, adminCall, enrollScanner, postCheckIn, T0 } from '../helpers/app.ts';
import { eachBackend } from '../helpers/backends.ts';
import { type Person, personWithRole } from '../helpers/people.ts';

/**
 * CONTRACT.md, "Abuse of the people routes": a person limited to some events who asks for an id of
 * another event gets the 404 an unknown id gets. Tried as someone probing for ids would: every admin
 * path with an id in the OpenAPI document, every method, once with the ids of an event outside the
 * person's list and once with ids that name nothing; the two answers must be the same bytes once the
 * ids themselves are taken out.
 */

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type Ids = Record<string, string>;
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** An event with one of everything an admin path names by id. */
async function eventWithEverything(app: App): Promise<Ids> {
  const { eid } = await adminCall<{ eid: string }>(app, 'POST', '/admin/v1/events', {
    name: `Festival ${randomUUID().slice(0, 6)}`,
    event_date: '2026-06-01T10:00:00Z',
  });
  const ticket = (holder: string) =>
    adminCall<{ tid: string }>(app, 'POST', `/admin/v1/events/${eid}/tickets`, {
      holder_name: holder,
      ticket_type: 'GA',
    });
  const { tid } = await ticket('Ada Lovelace');
  const enrolment = await adminCall<{ token_id: string }>(app, 'POST', `/admin/v1/events/${eid}/enrollment-tokens`, {});
  const scannerId = randomUUID();
  const { apiKey, apiKeyId } = await enrollScanner(app, eid, scannerId);
  await adminCall(app, 'PUT', `/admin/v1/events/${eid}/gates/north`, { name: 'North', admits: null });
  await adminCall(app, 'PUT', `/admin/v1/events/${eid}/ticket-types/VIP`, { attention: true });
  const admitted = await ticket('Grace Hopper');
  const scan = { tid: admitted.tid, eid, scanned_at: T0, scanner_id: scannerId, idempotency_key: randomUUID() };
  assert.equal((await postCheckIn(app, apiKey, scan)).statusCode, 200);
  const log = await adminCall<{ scans: { scan_id: number }[] }>(app, 'GET', `/admin/v1/events/${eid}/scans`);
  return {
    eid,
    tid,
    enrollment_token: enrolment.token_id,
    api_key_id: apiKeyId,
    gate_id: 'north',
    ticket_type: 'VIP',
    scan_id: String(log.scans[0]!.scan_id),
  };
}

/** Ids of the same shapes that name nothing. */
const UNKNOWN: Ids = {
  eid: 'evt_01JZZZZZZZZZZZZZZZZZZZZZZZ',
  tid: '01JZZZZZZZZZZZZZZZZZZZZZZZ',
  enrollment_token: 'set_01JZZZZZZZZZZZZZZZZZZZZZZZ',
  api_key_id: 'sck_01JZZZZZZZZZZZZZZZZZZZZZZZ',
  gate_id: 'south',
  ticket_type: 'Backstage',
  scan_id: '987654321',
  personal_token: 'iat_01JZZZZZZZZZZZZZZZZZZZZZZZ',
  webhook_id: 'whk_01JZZZZZZZZZZZZZZZZZZZZZZZ',
  message_id: 'msg_01JZZZZZZZZZZZZZZZZZZZZZZZ',
  kid: 'key-zzzzzzzz',
  user_id: 'usr_01JZZZZZZZZZZZZZZZZZZZZZZZ',
};

/** Which id a path parameter takes (`token_id` names an enrolment token or a personal token). */
const idFor = (path: string, param: string): string =>
  param !== 'token_id' ? param : path.startsWith('/admin/v1/api-tokens') ? 'personal_token' : 'enrollment_token';

/** The path with its parameters filled from `ids`, and the values used. */
function fill(path: string, ids: Ids): { url: string; used: string[] } {
  const used: string[] = [];
  const url = path.replace(/\{(\w+)\}/g, (_, param: string) => {
    const value = ids[idFor(path, param)];
    if (value === undefined) throw new Error(`no id for ${param} of ${path}`);
    used.push(value);
    return encodeURIComponent(value);
  });
  return { url, used };
}

/** An answer with the ids of its request taken out, longest first. */
const withoutIds = (body: string, ids: string[]) =>
  [...ids].sort((a, b) => b.length - a.length).reduce((text, id) => text.split(id).join('<id>'), body);

await eachBackend(
  'an id outside a person’s events answers as an unknown id',
  ({ it, issuer }) => {
    let mine: Ids;
    let theirs: Ids;
    let routes: { method: Method; path: string }[];
    const people: Partial<Record<'supervisor' | 'viewer', Person>> = {};

    it('sets up two events, a supervisor and a viewer of the first, and another person’s things', async () => {
      const app = issuer().app;
      mine = await eventWithEverything(app);
      const other = await eventWithEverything(app);
      const manager = await personWithRole(app, 'manager');
      const personal = await app.inject({
        method: 'POST',
        url: '/admin/v1/api-tokens',
        headers: manager.session,
        payload: { name: 'theirs' },
      });
      const { webhook_id } = await adminCall<{ webhook_id: string }>(app, 'POST', '/admin/v1/webhooks', {
        url: 'http://127.0.0.1:9/hook',
        event_types: ['ticket.revoked'],
      });
      const { message_id } = await adminCall<{ message_id: string }>(
        app,
        'POST',
        `/admin/v1/webhooks/${webhook_id}/test`,
        {},
        202,
      );
      const { keys } = await adminCall<{ keys: { kid: string }[] }>(app, 'GET', '/admin/v1/signing-keys');
      theirs = {
        ...other,
        personal_token: (personal.json() as { token_id: string }).token_id,
        webhook_id,
        message_id,
        kid: keys[0]!.kid,
        user_id: manager.user_id,
      };
      for (const role of ['supervisor', 'viewer'] as const) people[role] = await personWithRole(app, role, [mine.eid!]);
      const doc = (await app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, object> };
      routes = Object.entries(doc.paths)
        .filter(([path]) => path.startsWith('/admin/v1/') && path.includes('{'))
        .flatMap(([path, item]) =>
          Object.keys(item)
            .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
            .map((m) => ({ method: m.toUpperCase() as Method, path })),
        );
      assert.ok(routes.length >= 25, `${routes.length} admin routes with an id`);
    });

    const ask = (person: Person, method: Method, url: string) =>
      issuer().app.inject({
        method,
        url,
        headers: person.headers,
        ...(method === 'GET' || method === 'DELETE' ? {} : { payload: {} }),
      });

    for (const role of ['supervisor', 'viewer'] as const) {
      it(`a ${role}: another event's ids answer byte for byte as ids that name nothing, on every admin route`, async () => {
        const person = people[role]!;
        const problems: string[] = [];
        for (const { method, path } of routes) {
          const out = fill(path, theirs);
          const unknown = fill(path, UNKNOWN);
          const [a, b] = [await ask(person, method, out.url), await ask(person, method, unknown.url)];
          const where = `${method} ${path}`;
          if (a.statusCode !== b.statusCode || withoutIds(a.body, out.used) !== withoutIds(b.body, unknown.used)) {
            problems.push(`${where}: ${a.statusCode} ${a.body} / unknown: ${b.statusCode} ${b.body}`);
          }
          if (a.body.includes(theirs.eid!)) problems.push(`${where} names the other event: ${a.body}`);
          const refusedByRole = a.statusCode === 403 && a.json().error.details.reason === 'role';
          if (a.statusCode !== 404 && !refusedByRole) problems.push(`${where}: ${a.statusCode} ${a.body}`);
          if (a.statusCode === 404 && a.json().error.code !== 'NOT_FOUND') problems.push(`${where}: ${a.body}`);
        }
        assert.deepEqual(problems, []);
      });
    }

    it("another event's ids answer the 404 an owner gets for ids that name nothing", async () => {
      const owner = { headers: admin } as Person;
      const problems: string[] = [];
      let compared = 0;
      for (const { method, path } of routes.filter((r) => r.method === 'GET' || /revoke|annul/.test(r.path))) {
        const out = fill(path, theirs);
        const unknown = fill(path, UNKNOWN);
        const a = await ask(people.supervisor!, method, out.url);
        if (a.statusCode !== 404) continue;
        compared += 1;
        const b = await ask(owner, method, unknown.url);
        if (b.statusCode !== 404 || withoutIds(a.body, out.used) !== withoutIds(b.body, unknown.used)) {
          problems.push(`${method} ${path}: ${a.body} / the owner's: ${b.statusCode} ${b.body}`);
        }
      }
      assert.deepEqual(problems, []);
      assert.ok(compared >= 15, `only ${compared} answers compared`);
    });

    it("a scan of another event, asked under the person's own event, answers as a scan_id that names none", async () => {
      const person = people.supervisor!;
      const url = (scanId: string) => `/admin/v1/events/${mine.eid}/scans/${scanId}/annul`;
      const [a, b] = [
        await ask(person, 'POST', url(theirs.scan_id!)),
        await ask(person, 'POST', url(UNKNOWN.scan_id!)),
      ];
      assert.equal(a.statusCode, 404, a.body);
      assert.equal(withoutIds(a.body, [theirs.scan_id!]), withoutIds(b.body, [UNKNOWN.scan_id!]));
    });

    it('the person’s own ids still answer (the 404 is not a refusal of everything)', async () => {
      const person = people.viewer!;
      for (const url of [`/admin/v1/events/${mine.eid}`, `/admin/v1/tickets/${mine.tid}`]) {
        assert.equal((await ask(person, 'GET', url)).statusCode, 200, url);
      }
    });
  },
  { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } },
);
