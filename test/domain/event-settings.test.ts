import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventSettingsCache, SETTINGS_TTL_MS } from '../../src/domain/event-settings.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { newEvent } from '../store/conformance.ts';

test('an event’s re-entry setting is read at most once a second, and at once after a local change', async () => {
  const store = new SqliteStore(':memory:');
  let now = 0;
  let reads = 0;
  const getEvent = store.events.getEvent.bind(store.events);
  store.events.getEvent = async (eid) => {
    reads += 1;
    return getEvent(eid);
  };
  const cache = new EventSettingsCache(store, () => now);
  const event = newEvent();
  await store.events.createEvent(event);
  assert.equal(await cache.reentry(event.eid), false);
  await store.events.updateEventSettings(event.eid, { reentry: true });
  assert.equal(await cache.reentry(event.eid), false, 'within the second: the setting read before');
  assert.equal(reads, 1);
  now += SETTINGS_TTL_MS;
  assert.equal(await cache.reentry(event.eid), true, 'a second later: read again');
  await store.events.updateEventSettings(event.eid, { reentry: false });
  cache.forget(event.eid);
  assert.equal(await cache.reentry(event.eid), false, 'forgotten after a change made here');
  assert.equal(await cache.reentry('evt_unknown'), false);
  assert.equal(reads, 4);
  await store.close();
});

test('a burst of check-ins at an expired entry reads the event once, and a forget during the read wins', async () => {
  const store = new SqliteStore(':memory:');
  let now = 0;
  let reads = 0;
  const getEvent = store.events.getEvent.bind(store.events);
  store.events.getEvent = async (eid) => {
    reads += 1;
    const read = await getEvent(eid);
    await new Promise((resolve) => setTimeout(resolve, 5));
    return read;
  };
  const cache = new EventSettingsCache(store, () => now);
  const event = newEvent();
  await store.events.createEvent(event);
  const answers = await Promise.all(Array.from({ length: 200 }, () => cache.reentry(event.eid)));
  assert.deepEqual(new Set(answers), new Set([false]));
  assert.equal(reads, 1, 'one read for the 200');
  now += SETTINGS_TTL_MS;
  await Promise.all(Array.from({ length: 200 }, () => cache.reentry(event.eid)));
  assert.equal(reads, 2, 'expired: one read again');
  now += SETTINGS_TTL_MS;
  const before = cache.reentry(event.eid);
  await store.events.updateEventSettings(event.eid, { reentry: true });
  cache.forget(event.eid);
  assert.equal(await cache.reentry(event.eid), true, 'after a forget, a read of its own');
  assert.equal(await before, false, 'the read under way answers what it read');
  assert.equal(await cache.reentry(event.eid), true, 'the older read did not overwrite the newer one');
  assert.equal(reads, 4);
  await store.close();
});
