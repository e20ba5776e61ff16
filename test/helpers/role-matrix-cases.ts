import { randomUUID } from 'node:crypto';
import type { App } from '../../src/http/context.ts';
import { adminCall, checkInBody, enrollScanner, postCheckIn, T0 } from './app.ts';
import type { Person } from './people.ts';

/** What the matrix acts on: two events, each with a ticket and an enrolled scanner; a webhook; a person. */
export interface Fixture {
  app: App;
  events: Record<'A' | 'B', { eid: string; tid: string; apiKey: string; scannerId: string }>;
  webhookId: string;
  userId: string;
}

/** One request of an operation, and the status it answers when the caller may make it. */
export interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  payload?: Record<string, unknown>;
  status: number;
  /** The caller's headers when not their personal token (a token cannot make tokens: their session). */
  headers?: Record<string, string>;
}

/** Builds the request of one operation on event `eid` (made fresh, so each allowed write succeeds), by `actor`. */
type Case = (fx: Fixture, eid: string, actor: Person) => Promise<Call> | Call;

const rand = () => randomUUID().slice(0, 8);
const fixtureOf = (fx: Fixture, eid: string) => (fx.events.A.eid === eid ? fx.events.A : fx.events.B);
const get = (url: string): Call => ({ method: 'GET', url, status: 200 });

async function freshTicket(fx: Fixture, eid: string): Promise<string> {
  const made = await adminCall<{ tid: string }>(fx.app, 'POST', `/admin/v1/events/${eid}/tickets`, {
    holder_name: 'Grace Hopper',
    ticket_type: 'GA',
  });
  return made.tid;
}

/** A ticket let in by the event's scanner: the scan log's line of that entry. */
async function freshEntry(fx: Fixture, eid: string): Promise<number> {
  const event = fixtureOf(fx, eid);
  const tid = await freshTicket(fx, eid);
  const res = await postCheckIn(
    fx.app,
    event.apiKey,
    checkInBody({ ...event, tid, ticketToken: '', apiKeyId: '' }, T0),
  );
  if (res.statusCode !== 200) throw new Error(`check-in: ${res.statusCode} ${res.body}`);
  const log = await adminCall<{ scans: { scan_id: number; tid: string }[] }>(
    fx.app,
    'GET',
    `/admin/v1/events/${eid}/scans?limit=1000`,
  );
  return log.scans.find((scan) => scan.tid === tid)!.scan_id;
}

async function freshWebhook(fx: Fixture): Promise<string> {
  const made = await adminCall<{ webhook_id: string }>(fx.app, 'POST', '/admin/v1/webhooks', {
    url: 'http://127.0.0.1:9/hook',
    event_types: ['ticket.checked_in'],
  });
  return made.webhook_id;
}

async function freshUser(fx: Fixture): Promise<string> {
  const made = await adminCall<{ user_id: string }>(fx.app, 'POST', '/admin/v1/users', {
    email: `someone-${rand()}@example.test`,
    name: 'Someone',
    role: 'viewer',
    events: [fx.events.A.eid],
  });
  return made.user_id;
}

/** Every guarded admin operation, by operationId. */
export const CASES: Record<string, Case> = {
  listEvents: () => get('/admin/v1/events'),
  createEvent: () => ({
    method: 'POST',
    url: '/admin/v1/events',
    payload: { name: `Event ${rand()}`, event_date: '2026-07-01T18:00:00Z', ends_at: '2026-07-02T02:00:00Z' },
    status: 201,
  }),
  getEvent: (_fx, eid) => get(`/admin/v1/events/${eid}`),
  updateEvent: (_fx, eid) => ({
    method: 'PATCH',
    url: `/admin/v1/events/${eid}`,
    payload: { capacity: 5000 },
    status: 200,
  }),
  getOccupancy: (_fx, eid) => get(`/admin/v1/events/${eid}/occupancy`),
  getArrivals: (_fx, eid) => get(`/admin/v1/events/${eid}/arrivals`),
  listGates: (_fx, eid) => get(`/admin/v1/events/${eid}/gates`),
  putGate: (_fx, eid) => ({
    method: 'PUT',
    url: `/admin/v1/events/${eid}/gates/gate-${rand()}`,
    payload: { name: 'North', admits: null },
    status: 200,
  }),
  deleteGate: async (fx, eid) => {
    const url = `/admin/v1/events/${eid}/gates/gate-${rand()}`;
    await adminCall(fx.app, 'PUT', url, { name: 'South', admits: null }, 200);
    return { method: 'DELETE', url, status: 204 };
  },
  listTicketTypes: (_fx, eid) => get(`/admin/v1/events/${eid}/ticket-types`),
  putTicketType: (_fx, eid) => ({
    method: 'PUT',
    url: `/admin/v1/events/${eid}/ticket-types/VIP-${rand()}`,
    payload: { attention: true },
    status: 200,
  }),
  deleteTicketType: async (fx, eid) => {
    const url = `/admin/v1/events/${eid}/ticket-types/Day-${rand()}`;
    await adminCall(fx.app, 'PUT', url, { attention: false }, 200);
    return { method: 'DELETE', url, status: 204 };
  },
  issueTickets: (_fx, eid) => ({
    method: 'POST',
    url: `/admin/v1/events/${eid}/tickets`,
    payload: { holder_name: 'Ada Lovelace', ticket_type: 'GA' },
    status: 201,
  }),
  listTickets: (_fx, eid) => get(`/admin/v1/events/${eid}/tickets`),
  getTicket: (fx, eid) => get(`/admin/v1/tickets/${fixtureOf(fx, eid).tid}`),
  getTicketQrSvg: (fx, eid) => get(`/admin/v1/tickets/${fixtureOf(fx, eid).tid}/qr.svg`),
  getTicketQrPng: (fx, eid) => get(`/admin/v1/tickets/${fixtureOf(fx, eid).tid}/qr.png`),
  updateTicket: (fx, eid) => ({
    method: 'PATCH',
    url: `/admin/v1/tickets/${fixtureOf(fx, eid).tid}`,
    payload: { attention: true },
    status: 200,
  }),
  revokeTicket: async (fx, eid) => ({
    method: 'POST',
    url: `/admin/v1/tickets/${await freshTicket(fx, eid)}/revoke`,
    payload: {},
    status: 200,
  }),
  reissueTicket: async (fx, eid) => ({
    method: 'POST',
    url: `/admin/v1/tickets/${await freshTicket(fx, eid)}/reissue`,
    payload: {},
    status: 200,
  }),
  createEnrollmentToken: (_fx, eid) => ({
    method: 'POST',
    url: `/admin/v1/events/${eid}/enrollment-tokens`,
    payload: {},
    status: 201,
  }),
  listEnrollmentTokens: (_fx, eid) => get(`/admin/v1/events/${eid}/enrollment-tokens`),
  revokeEnrollmentToken: async (fx, eid) => {
    const made = await adminCall<{ token_id: string }>(fx.app, 'POST', `/admin/v1/events/${eid}/enrollment-tokens`, {});
    return { method: 'POST', url: `/admin/v1/enrollment-tokens/${made.token_id}/revoke`, payload: {}, status: 200 };
  },
  listScanners: (_fx, eid) => get(`/admin/v1/events/${eid}/scanners`),
  revokeApiKey: async (fx, eid) => {
    const { apiKeyId } = await enrollScanner(fx.app, eid);
    return { method: 'POST', url: `/admin/v1/api-keys/${apiKeyId}/revoke`, payload: {}, status: 200 };
  },
  listScans: (_fx, eid) => get(`/admin/v1/events/${eid}/scans`),
  listConflicts: (_fx, eid) => get(`/admin/v1/events/${eid}/conflicts`),
  listRecentScans: (_fx, eid) => get(`/admin/v1/events/${eid}/scans/recent`),
  annulScan: async (fx, eid) => ({
    method: 'POST',
    url: `/admin/v1/events/${eid}/scans/${await freshEntry(fx, eid)}/annul`,
    payload: {},
    status: 200,
  }),
  // Mail is not configured here: a role allowed to send gets the 409 that says so, past the role check.
  sendTickets: (_fx, eid) => ({
    method: 'POST',
    url: `/admin/v1/events/${eid}/deliveries`,
    payload: { tids: null },
    status: 409,
  }),
  listTicketDeliveries: (_fx, eid) => get(`/admin/v1/events/${eid}/deliveries`),
  getEventReport: (_fx, eid) => get(`/admin/v1/events/${eid}/report`),
  exportTickets: (_fx, eid) => get(`/admin/v1/events/${eid}/export/tickets.csv`),
  exportScans: (_fx, eid) => get(`/admin/v1/events/${eid}/export/scans.csv`),
  listSigningKeys: () => get('/admin/v1/signing-keys'),
  rotateSigningKey: () => ({ method: 'POST', url: '/admin/v1/signing-keys/rotate', payload: {}, status: 201 }),
  removeSigningKey: async (fx) => {
    const old = await adminCall<{ kid: string }>(fx.app, 'POST', '/admin/v1/signing-keys/rotate', {});
    await adminCall(fx.app, 'POST', '/admin/v1/signing-keys/rotate', {});
    return { method: 'DELETE', url: `/admin/v1/signing-keys/${old.kid}`, status: 200 };
  },
  createWebhook: () => ({
    method: 'POST',
    url: '/admin/v1/webhooks',
    payload: { url: 'http://127.0.0.1:9/hook', event_types: ['ticket.revoked'] },
    status: 201,
  }),
  listWebhooks: () => get('/admin/v1/webhooks'),
  getWebhook: (fx) => get(`/admin/v1/webhooks/${fx.webhookId}`),
  updateWebhook: (fx) => ({
    method: 'PATCH',
    url: `/admin/v1/webhooks/${fx.webhookId}`,
    payload: { event_types: ['ticket.checked_in', 'ticket.revoked'] },
    status: 200,
  }),
  deleteWebhook: async (fx) => ({ method: 'DELETE', url: `/admin/v1/webhooks/${await freshWebhook(fx)}`, status: 204 }),
  rotateWebhookSecret: (fx) => ({
    method: 'POST',
    url: `/admin/v1/webhooks/${fx.webhookId}/rotate-secret`,
    payload: {},
    status: 200,
  }),
  testWebhook: (fx) => ({ method: 'POST', url: `/admin/v1/webhooks/${fx.webhookId}/test`, payload: {}, status: 202 }),
  listWebhookDeliveries: (fx) => get(`/admin/v1/webhooks/${fx.webhookId}/deliveries`),
  redeliverWebhookMessage: async (fx) => {
    const sent = await adminCall<{ message_id: string }>(
      fx.app,
      'POST',
      `/admin/v1/webhooks/${fx.webhookId}/test`,
      {},
      202,
    );
    const url = `/admin/v1/webhooks/${fx.webhookId}/deliveries/${sent.message_id}/redeliver`;
    return { method: 'POST', url, payload: {}, status: 202 };
  },

  createUser: (fx) => ({
    method: 'POST',
    url: '/admin/v1/users',
    payload: { email: `new-${rand()}@example.test`, name: 'New', role: 'viewer', events: [fx.events.A.eid] },
    status: 201,
  }),
  listUsers: () => get('/admin/v1/users'),
  getUser: (fx) => get(`/admin/v1/users/${fx.userId}`),
  updateUser: (fx) => ({
    method: 'PATCH',
    url: `/admin/v1/users/${fx.userId}`,
    payload: { name: 'Renamed' },
    status: 200,
  }),
  deleteUser: async (fx) => ({ method: 'DELETE', url: `/admin/v1/users/${await freshUser(fx)}`, status: 204 }),
  inviteUser: (fx) => ({ method: 'POST', url: `/admin/v1/users/${fx.userId}/invite`, payload: {}, status: 201 }),
  createApiToken: (_fx, _eid, actor) => ({
    method: 'POST',
    url: '/admin/v1/api-tokens',
    payload: { name: 'script' },
    status: 201,
    headers: actor.session,
  }),
  listApiTokens: () => get('/admin/v1/api-tokens'),
  deleteApiToken: async (fx, _eid, actor) => {
    const made = await fx.app.inject({
      method: 'POST',
      url: '/admin/v1/api-tokens',
      headers: actor.session,
      payload: { name: 'to delete' },
    });
    const { token_id } = made.json() as { token_id: string };
    return { method: 'DELETE', url: `/admin/v1/api-tokens/${token_id}`, status: 204 };
  },
  listAudit: () => get('/admin/v1/audit'),
};

/** The fixture: events A and B, each with a ticket and a scanner; a webhook endpoint; a person to read. */
export async function matrixFixture(app: App): Promise<Fixture> {
  const event = async () => {
    const { eid } = await adminCall<{ eid: string }>(app, 'POST', '/admin/v1/events', {
      name: `Festival ${rand()}`,
      event_date: '2026-06-01T10:00:00Z',
      ends_at: '2026-06-02T02:00:00Z',
    });
    const { tid } = await adminCall<{ tid: string }>(app, 'POST', `/admin/v1/events/${eid}/tickets`, {
      holder_name: 'Alan Turing',
      ticket_type: 'GA',
    });
    const scannerId = randomUUID();
    const { apiKey } = await enrollScanner(app, eid, scannerId);
    return { eid, tid, apiKey, scannerId };
  };
  const events = { A: await event(), B: await event() };
  const fx: Fixture = { app, events, webhookId: '', userId: '' };
  fx.webhookId = await freshWebhook(fx);
  fx.userId = await freshUser(fx);
  return fx;
}
