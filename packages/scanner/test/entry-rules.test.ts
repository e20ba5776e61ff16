import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import {
  CASE_GATES,
  CASE_TICKET_TYPE,
  caseTypeRules,
  type Change,
  ENTRY_RULE_CASES,
  type EntryRuleCase,
  RULE_REFUSALS,
} from '@ticket-issuer/protocol';
import { decideOffline, KeyRing, Scanner, type LocalKnowledge } from '../src/index.ts';
import { discovery, enrolledStorage, json } from './fake-issuer.ts';
import { claims, EID, ISS, type TestKey, testKey } from './keys.ts';

const TID = '01JENTRYRULES0000000000000';

let key: TestKey;
let keys: KeyRing;

before(async () => {
  key = await testKey();
  keys = new KeyRing([key.jwk]);
});

const seconds = (iso: string) => Math.floor(new Date(iso).getTime() / 1000);

/** The ticket's token a case describes: its type, its `valid_from` as `nbf`, expired at the scan or not. */
function caseToken(c: EntryRuleCase): Promise<string> {
  return key.sign(
    claims(TID, {
      ticket_type: CASE_TICKET_TYPE,
      ...(c.validFrom ? { nbf: seconds(c.validFrom) } : {}),
      ...(c.expired ? { exp: seconds(c.scannedAt) - 60 } : {}),
    }),
  );
}

/** What the feed told the device of the case's ticket: its state, and its entries. */
function caseKnowledge(c: EntryRuleCase): LocalKnowledge {
  const type = caseTypeRules(c);
  return {
    revoked: new Set(c.revoked ? [TID] : []),
    superseded: new Map(),
    checkedIn: new Set(c.holder === 'unused' ? [] : [TID]),
    admitted: new Set(),
    out: new Set(c.holder === 'out' ? [TID] : []),
    reentry: c.event.reentry,
    calendar: c.event,
    ticketTypes: type === null ? [] : [type],
    entries: new Map([[TID, c.entries ?? []]]),
  };
}

const refusedByRules = (outcome: string) => (RULE_REFUSALS as readonly string[]).includes(outcome);

describe('the offline verdict judges the table of entry-rule cases as the issuer does', () => {
  for (const c of ENTRY_RULE_CASES) {
    test(`${c.name} -> ${c.outcome}`, async () => {
      const verdict = await decideOffline({
        token: await caseToken(c),
        eid: EID,
        iss: ISS,
        scannedAt: new Date(c.scannedAt),
        keys,
        knowledge: caseKnowledge(c),
        gate: CASE_GATES[c.gate ?? 'open'],
      });
      assert.equal(verdict.reason, c.outcome);
      assert.equal(verdict.verdict, c.outcome === 'valid' ? 'admit' : 'reject');
      assert.equal(verdict.refusal?.reason ?? null, refusedByRules(c.outcome) ? c.outcome : null);
    });
  }
});

/**
 * The feed an issuer would serve for a case: a check-in for each entry (the first one, oldest first),
 * an exit after the last for a holder out, and a revocation.
 */
function caseFeed(c: EntryRuleCase): Change[] {
  const entries = [...(c.entries ?? [])].sort();
  const changes: Change[] = entries.map((at) => ({
    type: 'checked_in',
    tid: TID,
    at,
    scanner_id: 'other',
    gate_id: null,
  }));
  if (c.holder === 'out') {
    const at = new Date(new Date(entries.at(-1)!).getTime() + 60_000).toISOString();
    changes.push({ type: 'checked_out', tid: TID, at, scanner_id: 'other', gate_id: null });
  }
  if (c.revoked) changes.push({ type: 'revoked', tid: TID, at: entries[0] ?? '2026-01-01T00:00:00Z' });
  return changes;
}

/** The rules route's answer for a case: its event, its gate and its declared type. */
function caseRules(c: EntryRuleCase) {
  const type = caseTypeRules(c);
  const gate = CASE_GATES[c.gate ?? 'open'];
  return {
    gates: gate === null ? [] : [gate],
    reentry: c.event.reentry,
    timezone: c.event.timezone,
    day_starts_at: c.event.day_starts_at,
    auto_exit: false,
    event_days: c.event.event_days ?? null,
    ticket_types: type === null ? [] : [type],
  };
}

/** A fake issuer serving a feed and rules; check-ins and uploads are not expected. */
function issuerFetch(changes: Change[], rules: unknown): typeof fetch {
  return (async (input: string | URL | Request) => {
    const url = String(input);
    if (url.includes('/changes')) return json(200, { changes, next_cursor: 'c1', has_more: false });
    if (url.endsWith('/rules')) return json(200, rules);
    if (url.endsWith('/.well-known/ticket-issuer.json')) return json(200, discovery(key));
    throw new Error(`unexpected request ${url}`);
  }) as typeof fetch;
}

// A holder inside or out came in at least once, as the feed tells: cases that say so without an entry
// describe a state the feed cannot (their facts are judged above).
const feedable = ENTRY_RULE_CASES.filter((c) => (c.holder === 'unused') === ((c.entries ?? []).length === 0));

describe('after one sync of the feed and the rules, the scanner judges the cases offline', () => {
  test('most of the table can be told by a feed', () => assert.ok(feedable.length >= 20, `${feedable.length}`));
  for (const c of feedable) {
    test(`${c.name} -> ${c.outcome}`, async () => {
      const scanner = await Scanner.open(enrolledStorage(key), {
        fetch: issuerFetch(caseFeed(c), caseRules(c)),
        now: () => new Date(c.scannedAt),
      });
      try {
        const synced = await scanner.sync();
        assert.equal(synced.problem, null);
        const gate = CASE_GATES[c.gate ?? 'open']?.gate_id ?? null;
        const [result] = await scanner.scan([await caseToken(c)], { offline: true, gate });
        assert.equal(result!.reason, c.outcome);
        assert.equal(result!.refusal?.reason ?? null, refusedByRules(c.outcome) ? c.outcome : null);
      } finally {
        await scanner.close();
      }
    });
  }
});
