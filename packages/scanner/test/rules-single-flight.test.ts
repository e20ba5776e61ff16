import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { DiscoveryDocument } from '@ticket-issuer/protocol';
import { IssuerClient, IssuerHttpError } from '../src/index.ts';
import { fetchRules } from '../src/rules.ts';
import { discovery, envelope, json, NO_RULES } from './fake-issuer.ts';
import { EID, testKey } from './keys.ts';

let doc: DiscoveryDocument;
before(async () => {
  doc = discovery(await testKey());
});

/**
 * A fake issuer that counts the requests per route and answers only when the test lets it: the
 * rules route (`null`: an issuer from before it, 404) and the gates route.
 */
function slowIssuer(rules: unknown = NO_RULES) {
  const asked = new Map<string, number>();
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  const fakeFetch = (async (input: string | URL | Request) => {
    const route = new URL(String(input)).pathname.split('/').pop()!;
    asked.set(route, (asked.get(route) ?? 0) + 1);
    await answered;
    if (route === 'gates') return json(200, { gates: [{ gate_id: 'north', admits: null }], reentry: true });
    if (rules === null) return envelope(404, 'NOT_FOUND');
    return rules instanceof Response ? rules.clone() : json(200, rules);
  }) as typeof fetch;
  return {
    asked,
    fetch: fakeFetch,
    client: new IssuerClient({ apiKey: 'sk_live_fake', fetch: fakeFetch }),
    /** Lets the requests asked so far, and later ones, be answered. */
    answer: () => answer(),
  };
}

/** Lets every pending request reach the fake issuer. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('the rules read by several at once (single flight)', () => {
  test('reads that overlap ask the issuer once, and each gets its answer', async () => {
    const issuer = slowIssuer();
    const reads = Array.from({ length: 5 }, () => fetchRules(issuer.client, doc, EID));
    await settle();
    issuer.answer();
    const answers = await Promise.all(reads);
    assert.equal(issuer.asked.get('rules'), 1);
    for (const answer of answers) assert.deepEqual(answer, answers[0]);
    assert.equal(answers[0]!.timezone, 'UTC');
  });

  test('a read after the answer came asks again: nothing is cached', async () => {
    const issuer = slowIssuer();
    issuer.answer();
    await fetchRules(issuer.client, doc, EID);
    await Promise.all([fetchRules(issuer.client, doc, EID), fetchRules(issuer.client, doc, EID)]);
    assert.equal(issuer.asked.get('rules'), 2);
  });

  test('a failure reaches every read that waited for it, and the next read asks again', async () => {
    const issuer = slowIssuer(envelope(503, 'UNAVAILABLE'));
    const reads = Array.from({ length: 3 }, () => fetchRules(issuer.client, doc, EID));
    await settle();
    issuer.answer();
    for (const read of reads) {
      await assert.rejects(read, (error: unknown) => error instanceof IssuerHttpError && error.status === 503);
    }
    assert.equal(issuer.asked.get('rules'), 1);
    await assert.rejects(fetchRules(issuer.client, doc, EID));
    assert.equal(issuer.asked.get('rules'), 2);
  });

  test('an issuer from before the rules route: overlapping reads ask each route once', async () => {
    const issuer = slowIssuer(null);
    const reads = [fetchRules(issuer.client, doc, EID), fetchRules(issuer.client, doc, EID)];
    await settle();
    issuer.answer();
    const [first, second] = await Promise.all(reads);
    assert.deepEqual([issuer.asked.get('rules'), issuer.asked.get('gates')], [1, 1]);
    assert.deepEqual([first!.reentry, second!.gates.map((gate) => gate.gate_id)], [true, ['north']]);
  });

  test('two clients (two keys) do not share a read, nor do two events', async () => {
    const issuer = slowIssuer();
    const other = new IssuerClient({ apiKey: 'sk_live_other', fetch: issuer.fetch });
    const reads = [
      fetchRules(issuer.client, doc, EID),
      fetchRules(other, doc, EID),
      fetchRules(issuer.client, doc, 'evt_OTHER'),
      fetchRules(issuer.client, doc, 'evt_OTHER'),
    ];
    await settle();
    issuer.answer();
    await Promise.all(reads);
    assert.equal(issuer.asked.get('rules'), 3);
  });
});
