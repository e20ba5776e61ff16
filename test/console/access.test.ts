import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PERMISSIONS, ROLES } from '../../src/domain/roles.ts';

interface AccessModule {
  ROLES: string[];
  CONSOLE_ACTIONS: Record<string, string[]>;
  setSession: (answer: unknown) => void;
  clearSession: () => void;
  may: (action: string, eid?: string) => boolean;
  whoText: () => string;
}

// The console's browser module, loaded as it is served (a plain ES module, no build).
const accessPath = '../../console/js/access.js';
const access = (await import(accessPath)) as AccessModule;

const person = (role: string, events: string[] | null) => ({
  csrf_token: 'x',
  expires_at: '2030-01-01T00:00:00Z',
  role,
  user: { user_id: 'usr_1', email: 'ada@example.org', name: 'Ada Lovelace', role, events },
});

describe('console: which controls a role is offered', () => {
  it('knows the roles of the issuer', () => {
    assert.deepEqual(access.ROLES, [...ROLES]);
  });

  it('offers each control to exactly the roles the issuer allows it to', () => {
    const table = PERMISSIONS as Record<string, { roles: readonly string[] }>;
    for (const [action, roles] of Object.entries(access.CONSOLE_ACTIONS)) {
      assert.ok(table[action], `${action} is an action of the issuer's table`);
      assert.deepEqual([...roles].sort(), [...table[action].roles].sort(), action);
    }
  });

  it('the admin token, and an answer without a person, is the owner: everything is offered', () => {
    access.setSession({ csrf_token: 'x', expires_at: '2030-01-01T00:00:00Z', role: 'owner', user: null });
    for (const action of Object.keys(access.CONSOLE_ACTIONS)) assert.equal(access.may(action, 'evt_a'), true, action);
    assert.equal(access.whoText(), 'Admin token (owner)');
    access.setSession({ csrf_token: 'x', expires_at: '2030-01-01T00:00:00Z' });
    assert.equal(access.may('user.create'), true);
  });

  it('a manager: no people; events, webhooks, keys and the audit trail', () => {
    access.setSession(person('manager', null));
    assert.equal(access.may('user.read'), false);
    assert.equal(access.may('audit.read'), true);
    assert.equal(access.may('webhook.read'), true);
    assert.equal(access.may('ticket.create', 'evt_a'), true);
    assert.equal(access.whoText(), 'Ada Lovelace (manager)');
  });

  it('a supervisor: revoke, enrol and annul on its own events only; no import, editors, webhooks or keys', () => {
    access.setSession(person('supervisor', ['evt_a']));
    for (const action of ['ticket.revoke', 'enrollment_token.create', 'api_key.revoke', 'scan.annul']) {
      assert.equal(access.may(action, 'evt_a'), true, action);
      assert.equal(access.may(action, 'evt_b'), false, `${action} on another event`);
    }
    for (const action of ['ticket.create', 'ticket_type.put', 'gate.put', 'event.update', 'ticket.reissue']) {
      assert.equal(access.may(action, 'evt_a'), false, action);
    }
    for (const action of ['webhook.read', 'signing_key.read', 'user.read', 'audit.read', 'event.create']) {
      assert.equal(access.may(action), false, action);
    }
  });

  it('a viewer: nothing but reading, and their own API tokens', () => {
    access.setSession(person('viewer', null));
    const offered = Object.keys(access.CONSOLE_ACTIONS).filter((action) => access.may(action, 'evt_a'));
    assert.deepEqual(offered.sort(), [
      'api_token.create',
      'api_token.delete',
      'api_token.read',
      'event.list',
      'event.read',
    ]);
    assert.equal(access.may('no.such_action'), false);
    access.clearSession();
    assert.equal(access.may('user.create'), true);
  });
});
