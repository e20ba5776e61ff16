/**
 * Things that belong to one event and are named without it in admin paths (`/admin/v1/tickets/{tid}`,
 * `/admin/v1/enrollment-tokens/{token_id}`, `/admin/v1/api-keys/{api_key_id}`): the role check of a
 * person limited to some events reads the event they belong to, one indexed row, before the route runs.
 */
export type OwnedResource = 'ticket' | 'enrollment_token' | 'api_key';

/** One statement per kind (`?` placeholder, shared by both stores): the event's eid, or no row. */
export const OWNING_EVENT_SQL: Record<OwnedResource, string> = {
  ticket: 'SELECT eid FROM tickets WHERE tid = ?',
  enrollment_token: 'SELECT eid FROM enrollment_tokens WHERE token_id = ?',
  api_key: 'SELECT eid FROM api_keys WHERE api_key_id = ?',
};
