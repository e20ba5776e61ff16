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
