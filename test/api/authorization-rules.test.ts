import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isAction, PERMISSIONS } from '../../src/domain/roles.ts';
import { authorizeAdminScope } from '../../src/http/authorization.ts';
import { ROUTE_ACTIONS } from '../../src/http/route-actions.ts';
import { ADMIN_TOKEN, scenario, testIssuer, type TestIssuer } from '../helpers/app.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Every /admin/v1 operation of the document, with where it is. */
function adminOperations(doc: Json): { where: string; op: Json }[] {
  return Object.entries(doc.paths as Json)
    .filter(([path]) => path.startsWith('/admin/v1'))
    .flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((m) => ({ where: `${m.toUpperCase()} ${path}`, op: item[m] as Json })),
    );
}

describe('every admin operation has its rule (the OpenAPI document against ROUTE_ACTIONS and the role table)', () => {
  let t: TestIssuer;
  let doc: Json;
  before(async () => {
    t = await testIssuer();
    doc = (await t.app.inject({ url: '/openapi.json' })).json();
  });
  after(() => t.close());

  it('each /admin/v1 operation names an action of the role table, or is public or session-only', () => {
    const operations = adminOperations(doc);
    assert.ok(operations.length >= 40, `only ${operations.length} admin operations in the document`);
    for (const { where, op } of operations) {
      assert.ok(Object.hasOwn(ROUTE_ACTIONS, op.operationId), `${where}: ${op.operationId} is not in ROUTE_ACTIONS`);
      const action = ROUTE_ACTIONS[op.operationId]!;
      assert.ok(action === 'public' || action === 'session' || isAction(action), `${where}: ${action}`);
    }
  });

  it('ROUTE_ACTIONS names no operation the issuer does not serve, and every action of the table is used', () => {
    const served = new Set(adminOperations(doc).map(({ op }) => op.operationId as string));
    assert.deepEqual(
      Object.keys(ROUTE_ACTIONS).filter((id) => !served.has(id)),
      [],
      'operations in ROUTE_ACTIONS without a route',
    );
    const used = new Set(Object.values(ROUTE_ACTIONS));
    assert.deepEqual(
      Object.keys(PERMISSIONS).filter((action) => !used.has(action as never)),
      [],
      'actions no route does',
    );
  });

  it('each guarded operation documents its roles and the 403 of a refused role', () => {
    for (const { where, op } of adminOperations(doc)) {
      const action = ROUTE_ACTIONS[op.operationId];
      if (action === 'public' || action === 'session') continue;
      assert.match(op.description, new RegExp(`\\*\\*Roles:\\*\\* .*\\(action \`${action}\`\\)`), where);
      const example = Object.values(op.responses['403'].content['application/json'].examples as Json)[0].value;
      assert.equal(example.error.details.reason, 'role', where);
    }
    // The words follow the table: a supervisor revokes on its events, a viewer does not.
    const revoke = doc.paths['/admin/v1/tickets/{tid}/revoke'].post.description as string;
    assert.match(revoke, /owner, manager, supervisor \(its events\)/);
    assert.doesNotMatch(revoke, /viewer/);
    assert.match(doc.paths['/admin/v1/signing-keys'].get.description, /\*\*Roles:\*\* owner, manager \(/);
  });
});

describe('the issuer refuses to start with an admin route it cannot judge', () => {
  const handler = async () => ({});

  it('an /admin/v1 operationId missing from ROUTE_ACTIONS', async () => {
    const t = await testIssuer();
    try {
      assert.throws(
        () => t.app.get('/admin/v1/brand-new', { schema: { operationId: 'brandNew' } as never }, handler),
        /operationId brandNew has no rule in ROUTE_ACTIONS/,
      );
      assert.throws(() => t.app.get('/admin/v1/no-id', handler), /operationId \(none\) has no rule/);
    } finally {
      await t.close();
    }
  });

  it('a guarded operation declared outside the admin scope (no authentication, no authorization)', async () => {
    const t = await testIssuer();
    try {
      assert.throws(
        () =>
          t.app.post('/admin/v1/elsewhere/:tid/revoke', { schema: { operationId: 'revokeTicket' } as never }, handler),
        /\(ticket\.revoke\) is declared outside the admin scope/,
      );
    } finally {
      await t.close();
    }
  });

  it('an event action whose path names no event; a public operation inside the admin scope', async () => {
    for (const [url, operationId, problem] of [
      ['/admin/v1/somewhere', 'getEvent', /\(event\.read\) names no event in its path/],
      ['/admin/v1/accept-here', 'acceptInvitation', /\(public\) is declared inside the admin scope/],
    ] as const) {
      const t = await testIssuer();
      await assert.rejects(async () => {
        await t.app.register(async (scope) => {
          authorizeAdminScope(scope, t.store);
          scope.get(url, { schema: { operationId } as never }, handler);
        });
        await t.app.ready();
      }, problem);
      await t.store.close();
    }
  });
});

describe('the organizer annul is an admin operation like the others', () => {
  it('needs the admin credential (it was reachable without one)', async () => {
    const t = await testIssuer();
    try {
      const s = await scenario(t.app);
      const url = `/admin/v1/events/${s.eid}/scans/1/annul`;
      const anonymous = await t.app.inject({ method: 'POST', url, payload: {} });
      assert.equal(anonymous.statusCode, 401);
      assert.equal(anonymous.json().error.code, 'UNAUTHORIZED');
      const owner = await t.app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        payload: {},
      });
      assert.equal(owner.statusCode, 404, owner.body);
    } finally {
      await t.close();
    }
  });
});
