import assert from 'node:assert/strict';
import type { App } from '../../src/http/context.ts';
import { adminCall, checkInBody, postCheckIn, scenario, T0 } from './app.ts';

/**
 * Sends, all at once (so that they share a group commit or a batch), a replay, the same key with a
 * changed body, a revoked ticket, an unknown tid, a double scan, and one new key twice; asserts that
 * each gets the answer it would get alone.
 */
export async function assertMixedBatchAnswered(app: App): Promise<void> {
  const s = await scenario(app);
  const revoked = await scenario(app);
  await adminCall(app, 'POST', `/admin/v1/tickets/${revoked.tid}/revoke`);
  const first = checkInBody(s, T0);
  assert.equal((await postCheckIn(app, s.apiKey, first)).json().status, 'valid');
  const fresh = await scenario(app);
  const twice = checkInBody(fresh, T0);
  const answers = await Promise.all([
    postCheckIn(app, s.apiKey, first),
    postCheckIn(app, s.apiKey, { ...first, gate_id: 'elsewhere' }),
    postCheckIn(app, revoked.apiKey, checkInBody(revoked, T0)),
    postCheckIn(app, s.apiKey, checkInBody({ ...s, tid: '01JZZZZZZZZZZZZZZZZZZZZZZZ' }, T0)),
    postCheckIn(app, s.apiKey, checkInBody(s, T0)),
    postCheckIn(app, fresh.apiKey, twice),
    postCheckIn(app, fresh.apiKey, twice),
  ]);
  assert.deepEqual(
    answers.map((r) => [r.statusCode, r.json().status ?? r.json().error.code]),
    [
      [200, 'valid'],
      [409, 'IDEMPOTENCY_CONFLICT'],
      [200, 'revoked'],
      [404, 'NOT_FOUND'],
      [200, 'already_used'],
      [200, 'valid'],
      [200, 'valid'],
    ],
  );
  assert.equal(answers[0]!.headers['idempotent-replayed'], 'true');
  assert.equal(answers[5]!.body, answers[6]!.body, 'one key twice: one answer');
  const replayed = answers.slice(5).filter((r) => r.headers['idempotent-replayed'] === 'true');
  assert.equal(replayed.length, 1, 'one key twice: one state change');
}
