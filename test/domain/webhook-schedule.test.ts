import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { isPublicAddress, urlFormProblem } from '../../src/webhooks/receiver-url.ts';
import { MAX_DEFERRALS, nextRetry, parseRetryAfter } from '../../src/outbox/schedule.ts';
import { newWebhookSecret, signature, signatureHeader } from '../../src/webhooks/signing.ts';
import { messageBody } from '../../src/webhooks/attempt.ts';

describe('webhook retry schedule', () => {
  const schedule = [5, 300, 1800];

  it('each retry comes after its delay, within ±10 % (the contract allows ±20 % with lateness)', () => {
    for (const [used, delay] of schedule.entries()) {
      assert.deepEqual(
        nextRetry(schedule, used, 0, null, () => 0),
        { delay_s: delay * 0.9, step: true },
      );
      assert.deepEqual(
        nextRetry(schedule, used, 0, null, () => 1),
        { delay_s: delay * 1.1, step: true },
      );
      assert.deepEqual(
        nextRetry(schedule, used, 0, null, () => 0.5),
        { delay_s: delay, step: true },
      );
    }
  });

  it('past the last delay the message has failed', () => {
    assert.equal(nextRetry(schedule, 3, 0, null), null);
  });

  it('a Retry-After of up to an hour sets the delay and uses none of the schedule; a longer one is ignored', () => {
    assert.deepEqual(nextRetry(schedule, 1, 0, 42), { delay_s: 42, step: false });
    assert.deepEqual(nextRetry(schedule, 1, 0, 3600), { delay_s: 3600, step: false });
    assert.deepEqual(nextRetry(schedule, 3, 0, 10), { delay_s: 10, step: false }, 'even past the last delay');
    assert.deepEqual(
      nextRetry(schedule, 1, 0, 3601, () => 0.5),
      { delay_s: 300, step: true },
    );
  });

  it('after MAX_DEFERRALS Retry-After answers, the schedule goes on as if there were none', () => {
    assert.deepEqual(nextRetry(schedule, 1, MAX_DEFERRALS - 1, 42), { delay_s: 42, step: false });
    assert.deepEqual(
      nextRetry(schedule, 1, MAX_DEFERRALS, 42, () => 0.5),
      { delay_s: 300, step: true },
    );
    assert.equal(nextRetry(schedule, 3, MAX_DEFERRALS, 42), null);
  });

  it('Retry-After is read as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-25T10:00:00Z');
    assert.equal(parseRetryAfter('120', now), 120);
    assert.equal(parseRetryAfter('Wed, 25 Nov 2026 10:01:30 GMT', now), 90);
    assert.equal(parseRetryAfter('Wed, 25 Nov 2026 09:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter('soon', now), null);
    assert.equal(parseRetryAfter(undefined, now), null);
  });
});

describe('webhook signatures', () => {
  it('match what the standardwebhooks package signs and verifies', () => {
    const secret = newWebhookSecret();
    const body = messageBody({
      type: 'webhook.test',
      data: '{"webhook_id":"whk_1"}',
      position: null,
      occurred_at: '2026-11-25T10:00:00.000Z',
    });
    assert.equal(body, '{"type":"webhook.test","timestamp":"2026-11-25T10:00:00Z","data":{"webhook_id":"whk_1"}}');
    const now = new Date();
    const timestamp = Math.floor(now.getTime() / 1000);
    assert.equal(signature(secret, 'msg_1', timestamp, body), new Webhook(secret).sign('msg_1', now, body));
    const header = signatureHeader([newWebhookSecret(), secret], 'msg_1', timestamp, body);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': header };
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  });

  it('a position joins the data last', () => {
    const body = messageBody({
      type: 'ticket.revoked',
      data: '{"eid":"evt_1","tid":"T1","revoked_at":"2026-11-25T10:00:00Z","reason":null}',
      position: 7,
      occurred_at: '2026-11-25T10:00:00.123Z',
    });
    assert.equal(
      body,
      '{"type":"ticket.revoked","timestamp":"2026-11-25T10:00:00.123Z","data":{"eid":"evt_1","tid":"T1","revoked_at":"2026-11-25T10:00:00Z","reason":null,"position":7}}',
    );
  });
});

describe('webhook receiver URLs', () => {
  it('take http and https without user info, up to 2,048 characters', () => {
    assert.equal(urlFormProblem('https://hooks.example.com/t?x=1'), null);
    assert.match(urlFormProblem('ftp://hooks.example.com/')!, /http or https/);
    assert.match(urlFormProblem('https://me:pw@hooks.example.com/')!, /user info/);
    assert.match(urlFormProblem(`https://hooks.example.com/${'a'.repeat(2030)}`)!, /2048/);
    assert.match(urlFormProblem('hooks.example.com/hook')!, /absolute/);
  });

  it('count only public addresses as public', () => {
    for (const address of ['93.184.216.34', '2606:2800:220:1::1'])
      assert.equal(isPublicAddress(address), true, address);
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd12::1',
      '::ffff:127.0.0.1',
      'not an address',
    ]) {
      assert.equal(isPublicAddress(address), false, address);
    }
  });
});

describe('webhook attempts to private addresses', () => {
  it('are refused at connection time without WEBHOOK_ALLOW_PRIVATE, and made with it', async () => {
    const { Receiver } = await import('../helpers/webhook-receiver.ts');
    const { Transport } = await import('../../src/webhooks/deliver.ts');
    const receiver = await Receiver.start();
    const filtered = new Transport(false);
    const open = new Transport(true);
    try {
      const refused = await filtered.post(receiver.url, '{}', {}, 2000);
      assert.deepEqual(
        [refused.status_code, refused.error],
        [null, 'address not allowed: a loopback or private network'],
      );
      assert.equal(receiver.requests.length, 0, 'nothing reached the receiver');
      const made = await open.post(receiver.url, '{}', {}, 2000);
      assert.equal(made.status_code, 200);
    } finally {
      filtered.close();
      open.close();
      await receiver.close();
    }
  });
});

describe('request pressure (when delivery gives way to the gates)', () => {
  it('is busy with 4 scanners’ requests under way, and not once they ended a while ago', async () => {
    const { RequestPressure } = await import('../../src/outbox/pressure.ts');
    const pressure = new RequestPressure();
    assert.equal(pressure.busy(), false, 'nothing arrived');
    for (const id of ['r1', 'r2', 'r3']) pressure.started(id);
    pressure.started('r4');
    assert.equal(pressure.busy(), true);
    for (const id of ['r1', 'r2', 'r3', 'r4', 'r4']) pressure.ended(id);
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(pressure.busy(), false, 'the rush is over');
  });
});

describe('the end of an attempt', () => {
  it('delivered on a 2xx; due again after the delay from its end; failed past the last; 410 fails and disables', async () => {
    const { attemptResult } = await import('../../src/webhooks/attempt.ts');
    const message = {
      message_id: 'msg_1',
      webhook_id: 'whk_1',
      type: 'webhook.test',
      data: '{}',
      position: null,
      occurred_at: '2026-11-25T10:00:00.000Z',
      attempt_count: 0,
      schedule_step: 0,
      lease_token: 'token-1',
    };
    const times = { started: new Date('2026-11-25T10:00:00.000Z'), ended: new Date('2026-11-25T10:00:07.000Z') };
    const outcome = (status_code: number | null) => ({ status_code, error: null, duration_ms: 3, retry_after_s: null });
    const delivered = attemptResult(message, times, outcome(204), true, [5]);
    assert.deepEqual([delivered.next, delivered.lease_token], [{ state: 'delivered' }, 'token-1']);
    assert.deepEqual(
      [delivered.attempt.at, delivered.ended_at],
      ['2026-11-25T10:00:00.000Z', '2026-11-25T10:00:07.000Z'],
    );
    const retry = attemptResult(message, times, { ...outcome(503), retry_after_s: 42 }, false, [5]);
    assert.deepEqual(retry.next, { state: 'pending', delay_s: 42, step: false });
    assert.equal(retry.failing_before, '2026-11-20T10:00:00.000Z', 'five days of failures disable');
    const scheduled = attemptResult(message, times, outcome(500), false, [5]);
    assert.equal(scheduled.next.state === 'pending' && scheduled.next.step, true, 'a delay of the schedule used');
    const last = attemptResult({ ...message, attempt_count: 1, schedule_step: 1 }, times, outcome(500), false, [5]);
    assert.deepEqual(last.next, { state: 'failed' });
    const deferred = attemptResult({ ...message, attempt_count: 3, schedule_step: 0 }, times, outcome(500), false, [5]);
    assert.equal(deferred.next.state, 'pending', 'attempts put off by a Retry-After used none of the schedule');
    const gone = attemptResult(message, times, outcome(410), false, [5]);
    assert.deepEqual([gone.next, gone.disable], [{ state: 'failed' }, 'gone']);
  });
});

describe("a batch of attempts and its endpoints' failure runs", () => {
  it('a run is broken by a delivery and starts again at the first failure after it', async () => {
    const { failureRuns } = await import('../../src/store/webhook-records.ts');
    const result = (webhook_id: string, at: string, delivered: boolean, gone = false) => ({
      message_id: `msg_${at}`,
      webhook_id,
      lease_token: 'w',
      attempt: { at, status_code: delivered ? 200 : 500, error: null, duration_ms: 1 },
      ended_at: at,
      next: delivered ? { state: 'delivered' as const } : { state: 'failed' as const },
      disable: gone ? ('gone' as const) : null,
      failing_before: 'T0',
    });
    const runs = failureRuns([
      result('a', '2026-01-01T00:00:03Z', false),
      result('a', '2026-01-01T00:00:01Z', false),
      result('b', '2026-01-01T00:00:01Z', false),
      result('b', '2026-01-01T00:00:02Z', true),
      result('c', '2026-01-01T00:00:01Z', true),
      result('c', '2026-01-01T00:00:02Z', false, true),
      result('c', '2026-01-01T00:00:03Z', false),
    ]);
    assert.deepEqual(runs.get('a'), {
      failingSince: '2026-01-01T00:00:01Z',
      restarted: false,
      gone: false,
      failingBefore: 'T0',
    });
    assert.equal(runs.get('b')!.failingSince, null, 'its last attempt delivered');
    assert.deepEqual(
      [runs.get('c')!.failingSince, runs.get('c')!.restarted, runs.get('c')!.gone],
      ['2026-01-01T00:00:02Z', true, true],
    );
  });
});
