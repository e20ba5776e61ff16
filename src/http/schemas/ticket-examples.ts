/** Examples of the scanner's ticket answers, for the OpenAPI document. */
import { errorExample } from './common.ts';
import { EXAMPLE } from './examples.ts';

export const exitTicket = {
  tid: EXAMPLE.tid,
  eid: EXAMPLE.eid,
  holder_name: 'Ada Lovelace',
  ticket_type: 'GA',
};
export const ticket = { ...exitTicket, attention: false, checkin_texts: [] };
export const outcome = (summary: string, value: unknown) => ({ summary, value });

/** The entry rules' refusals of a check-in (403), one example each. */
export const ENTRY_RULE_REFUSAL_EXAMPLES = {
  not_valid_now: outcome(
    'A Saturday ticket on Friday',
    errorExample('FORBIDDEN', 'this ticket is not valid at this time', {
      reason: 'not_valid_now',
      event_day: '2026-07-03',
      valid_from: null,
      valid_days: ['2026-07-04'],
      event_days: { first: '2026-07-03', last: '2026-07-05' },
      hours: null,
      holder_name: 'Ada Lovelace',
      ticket_type: 'Saturday',
      entries: 0,
      attention: false,
      checkin_texts: [],
    }),
  ),
  entry_limit_reached: outcome(
    'A two-day ticket on a third day',
    errorExample('FORBIDDEN', 'this ticket has reached its entry limit', {
      reason: 'entry_limit_reached',
      event_day: '2026-07-05',
      entries: 3,
      entries_today: 0,
      max_entries: null,
      max_entries_per_day: null,
      max_days: 2,
      days_used: 2,
      holder_name: 'Ada Lovelace',
      ticket_type: 'Any two days',
      attention: false,
      checkin_texts: [],
    }),
  ),
  too_soon: outcome(
    'A second entry ten minutes after the first, 30 minutes apart',
    errorExample('FORBIDDEN', 'too soon after this ticket’s last entry', {
      reason: 'too_soon',
      last_entry_at: '2026-07-03T18:20:00.000Z',
      min_minutes_between_entries: 30,
      next_entry_at: '2026-07-03T18:50:00.000Z',
      holder_name: 'Ada Lovelace',
      ticket_type: 'Wristband',
      entries: 1,
      attention: false,
      checkin_texts: [],
    }),
  ),
};

/** A check-in's conflicts (409): a reused idempotency key, an offline rejection of a valid ticket. */
export const CHECK_IN_CONFLICT_EXAMPLES = {
  conflict: outcome(
    'Same key, different body',
    errorExample('IDEMPOTENCY_CONFLICT', 'this idempotency key was already used with a different request body', {
      idempotency_key: EXAMPLE.idempotencyKey,
    }),
  ),
  turned_away: outcome(
    'An offline rejection uploaded for a ticket that is still valid',
    errorExample('CONFLICT', 'this scanner turned the holder away offline, so the scan does not check the ticket in', {
      reason: 'turned_away_offline',
    }),
  ),
};
