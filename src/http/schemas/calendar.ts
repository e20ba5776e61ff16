import { Type } from '@sinclair/typebox';

/**
 * The event calendar's values as requests send them: an IANA zone, a local time, a date. The domain
 * checks what a pattern cannot (a zone the time-zone database knows, a date that exists, an order).
 */
const problem = (text: string) => ({ 'x-problem': text });

export const LOCAL_TIME_PROBLEM = 'must be a local time "HH:MM" from 00:00 to 23:59';

/** An IANA time-zone name (never an offset such as +01:00). */
export const TimeZoneIn = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z][A-Za-z0-9_+\\-]*(/[A-Za-z0-9_+\\-]+)*$',
  description: 'an IANA time zone such as Europe/Berlin (default UTC); event days are local days of this zone',
  ...problem('must be an IANA time zone such as Europe/Berlin, or UTC'),
});

/** A local wall-clock time "HH:MM". */
export const LocalTimeIn = (description: string) =>
  Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description, ...problem(LOCAL_TIME_PROBLEM) });

/** A calendar date "YYYY-MM-DD" (that it exists is the domain's check). */
export const CalendarDateIn = Type.String({
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
  description: 'an event day, "YYYY-MM-DD": the local date at the start of that day',
  ...problem('must be a date "YYYY-MM-DD"'),
});
