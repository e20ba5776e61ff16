import { newShortCodes } from '../../src/domain/short-codes.ts';
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { hashSecret, newEventId, newSecret, newTicketId } from '../../src/domain/ids.ts';
import type { AdminSessionRecord, EventRecord, Page, Store, TicketRecord } from '../../src/store/store.ts';

/** What the main conformance suite lends to this part of it. */
export interface ConsoleSuiteContext {
  test: (title: string, fn: () => Promise<void>) => void;
  store: () => Store;
  seed: (ticketCount?: number) => Promise<{ event: EventRecord; tickets: TicketRecord[] }>;
  at: (minutes: number) => string;
}

/** The organizer console's part of the one conformance suite: sessions and ticket search. */
export function consoleConformance(c: ConsoleSuiteContext): void {
  const { test, store, seed, at } = c;

  const newSession = (overrides: Partial<AdminSessionRecord> = {}): AdminSessionRecord => ({
    session_hash: hashSecret(newSecret('as_')),
    admin_token_tag: hashSecret('admin token tag'),
    user_id: null,
    created_at: at(0),
    last_seen_at: at(0),
    expires_at: at(24 * 60),
    ...overrides,
  });

  /** An event whose tickets carry these holder names, in tid order. */
  async function holders(...names: string[]): Promise<{ eid: string; tickets: TicketRecord[] }> {
    const { event } = await seed(0);
    const tickets = names.map((holder_name) => ({
      tid: newTicketId(),
      eid: event.eid,
      holder_name,
      ticket_type: 'general',
      issued_at: at(0),
      expires_at: null,
      checked_in_at: null,
      revoked_at: null,
      revoke_reason: null,
      ticket_token: `token.${holder_name}`,
      external_id: null,
      valid_from: null,
      attention: false,
      checkin_text: null,
      email: null,
      order_ref: null,
      short_code: newShortCodes(1)[0]!,
    }));
    await store().tickets.createTickets(tickets);
    // Ticket ids are random ULIDs: within one millisecond their order is not the order of creation.
    return { eid: event.eid, tickets: tickets.sort((a, b) => (a.tid < b.tid ? -1 : 1)) };
  }

  const names = (result: Page<TicketRecord>): string[] => result.items.map((t) => t.holder_name);
  /** The given holders' names in tid order, as a search must answer them. */
  const inTidOrder = (tickets: TicketRecord[], ...wanted: string[]): string[] =>
    tickets.filter((t) => wanted.includes(t.holder_name)).map((t) => t.holder_name);

  describe('admin sessions', () => {
    test('createAdminSession and getAdminSession round-trip; an unknown hash is null', async () => {
      const session = newSession();
      await store().sessions.createAdminSession(session);
      assert.deepEqual(await store().sessions.getAdminSession(session.session_hash), session);
      assert.equal(await store().sessions.getAdminSession(hashSecret('never issued')), null);
    });

    test('touchAdminSession only moves last_seen_at forward', async () => {
      const session = newSession();
      await store().sessions.createAdminSession(session);
      await store().sessions.touchAdminSession(session.session_hash, at(30));
      await store().sessions.touchAdminSession(session.session_hash, at(10));
      assert.equal((await store().sessions.getAdminSession(session.session_hash))!.last_seen_at, at(30));
      await store().sessions.touchAdminSession(hashSecret('never issued'), at(40));
    });

    test('deleteAdminSession removes the session once', async () => {
      const session = newSession();
      await store().sessions.createAdminSession(session);
      assert.equal(await store().sessions.deleteAdminSession(session.session_hash), true);
      assert.equal(await store().sessions.getAdminSession(session.session_hash), null);
      assert.equal(await store().sessions.deleteAdminSession(session.session_hash), false);
    });

    test('a new session deletes the sessions whose absolute end has passed, and only those', async () => {
      const ended = newSession({ expires_at: at(60) });
      const living = newSession({ expires_at: at(3 * 60) });
      await store().sessions.createAdminSession(ended);
      await store().sessions.createAdminSession(living);
      await store().sessions.createAdminSession(newSession({ created_at: at(2 * 60), last_seen_at: at(2 * 60) }));
      assert.equal(await store().sessions.getAdminSession(ended.session_hash), null);
      assert.deepEqual(await store().sessions.getAdminSession(living.session_hash), living);
    });

    test('createAdminSession refuses a duplicate hash', async () => {
      const session = newSession();
      await store().sessions.createAdminSession(session);
      await assert.rejects(store().sessions.createAdminSession({ ...session, expires_at: at(99 * 60) }));
      assert.deepEqual(await store().sessions.getAdminSession(session.session_hash), session);
    });
  });

  describe('ticket search', () => {
    test('finds holder names containing the query, whatever the case, in tid order', async () => {
      const { eid, tickets } = await holders('Ada Lovelace', 'Alan Turing', 'Grace Hopper', 'ADALINE Smith');
      assert.deepEqual(
        names(await store().tickets.searchTickets(eid, 'ada', 10, null)),
        inTidOrder(tickets, 'Ada Lovelace', 'ADALINE Smith'),
      );
      assert.deepEqual(names(await store().tickets.searchTickets(eid, 'HOPP', 10, null)), ['Grace Hopper']);
      assert.deepEqual(names(await store().tickets.searchTickets(eid, 'nobody', 10, null)), []);
    });

    test('ignores accents and case, non-ASCII letters too', async () => {
      const { eid, tickets } = await holders('Émile Zola', 'Zoë Ødegård', 'Emile Other');
      const emiles = inTidOrder(tickets, 'Émile Zola', 'Emile Other');
      assert.deepEqual(names(await store().tickets.searchTickets(eid, 'émile', 10, null)), emiles);
      assert.deepEqual(names(await store().tickets.searchTickets(eid, 'EMILE', 10, null)), emiles);
      assert.deepEqual(names(await store().tickets.searchTickets(eid, 'ØDEGÅRD', 10, null)), ['Zoë Ødegård']);
      assert.deepEqual(names(await store().tickets.searchTickets(eid, 'odegard', 10, null)), ['Zoë Ødegård']);
    });

    test('finds a ticket by its tid or a prefix of it, in any case', async () => {
      const { eid, tickets } = await holders('One', 'Two');
      const tid = tickets.find((t) => t.holder_name === 'Two')!.tid;
      assert.deepEqual(names(await store().tickets.searchTickets(eid, tid, 10, null)), ['Two']);
      assert.deepEqual(names(await store().tickets.searchTickets(eid, tid.toLowerCase(), 10, null)), ['Two']);
      assert.deepEqual(names(await store().tickets.searchTickets(eid, tid.slice(0, 20), 10, null)), ['Two']);
    });

    test('ignores punctuation, so %, _ and \\ are never wildcards', async () => {
      const { eid } = await holders('100% Fan', 'snake_case', 'back\\slash', 'Plain', "O'Brien");
      assert.deepEqual(names(await store().tickets.searchTickets(eid, '100%', 10, null)), ['100% Fan']);
      assert.deepEqual(names(await store().tickets.searchTickets(eid, 'snake case', 10, null)), ['snake_case']);
      assert.deepEqual(names(await store().tickets.searchTickets(eid, 'obrien', 10, null)), ["O'Brien"]);
      assert.deepEqual(names(await store().tickets.searchTickets(eid, 'p_ain', 10, null)), []);
      assert.deepEqual(names(await store().tickets.searchTickets(eid, 'b%sl', 10, null)), []);
      assert.deepEqual(names(await store().tickets.searchTickets(eid, 'b\\s', 10, null)), []);
    });

    test('pages with cursors and stays inside the event', async () => {
      const { eid, tickets } = await holders('Kim A', 'Kim B', 'Kim C', 'Lee D', 'Kim E');
      const kims = tickets.filter((t) => t.holder_name.startsWith('Kim'));
      const other = await holders('Kim Elsewhere');
      const first = await store().tickets.searchTickets(eid, 'kim', 2, null);
      assert.deepEqual(first, { items: kims.slice(0, 2), next_cursor: kims[1]!.tid });
      const second = await store().tickets.searchTickets(eid, 'kim', 2, first.next_cursor);
      assert.deepEqual(second, { items: kims.slice(2), next_cursor: null });
      assert.deepEqual(names(await store().tickets.searchTickets(other.eid, 'kim', 10, null)), ['Kim Elsewhere']);
      assert.deepEqual(await store().tickets.searchTickets(newEventId(), 'kim', 10, null), {
        items: [],
        next_cursor: null,
      });
    });
  });
}
