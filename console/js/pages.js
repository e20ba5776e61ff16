import { api } from './api.js';

/** The most pages read for one list (of up to 1000 entries each): the console never reads without end. */
const MAX_PAGES = 20;

/**
 * Every entry of a paged admin list (`GET path` answering `{[key]: [...], next_cursor}`), page after
 * page: the events a choice offers, the people of the organization.
 */
export async function readAll(path, key) {
  const found = [];
  let cursor = null;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const query = new URLSearchParams({ limit: '1000', ...(cursor ? { cursor } : {}) });
    const answer = await api('GET', `${path}?${query}`);
    found.push(...(answer[key] ?? []));
    cursor = answer.next_cursor ?? null;
    if (cursor === null || answer.has_more === false) break;
  }
  return found;
}

/** The events the signed-in person may see, as a map eid → name. */
export async function eventNames() {
  return new Map((await readAll('/events', 'events')).map((event) => [event.eid, event.name]));
}
