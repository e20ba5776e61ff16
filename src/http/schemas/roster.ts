import { Type } from '@sinclair/typebox';
import { ROSTER_LIMIT } from '../../domain/roster.ts';
import { named } from './components.ts';
import { errorAnswer, errors, Id, json, Nullable, ScannerAuth } from './common.ts';
import { EXAMPLE } from './examples.ts';

const PAGING = {
  next_cursor: Type.String({
    description: 'pass it as `cursor` to get only what changed since; always present (at the end: ask again later)',
  }),
  has_more: Type.Boolean({ description: 'more is there to read now' }),
};

const RosterQuery = Type.Object({
  cursor: Type.Optional(
    Type.String({
      maxLength: 160,
      pattern: '^[\\x21-\\x7e]*$',
      description: 'next_cursor of the previous page; absent: from the start',
      'x-problem': 'must be a next_cursor of this list, as it was given',
    }),
  ),
  limit: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,5}$',
      description: `page size, 1 to ${ROSTER_LIMIT.max} (default ${ROSTER_LIMIT.default})`,
      'x-problem': `must be a whole number from 1 to ${ROSTER_LIMIT.max}`,
    }),
  ),
});

const RosterEntry = named(
  'RosterTicket',
  Type.Object(
    {
      tid: Type.String(),
      holder_name: Type.String(),
      ticket_type: Type.String(),
      order_ref: Nullable(Type.String(), { description: 'the order the ticket belongs to (its group), or null' }),
      attention: Type.Boolean({ description: 'the ticket’s own flag (the type’s comes with the rules)' }),
      checkin_text: Nullable(Type.String(), { description: 'the ticket’s own text (the type’s comes with the rules)' }),
      short_code: Type.String({ description: 'the ticket’s short code, `XXXXX-XXXXX`' }),
      revoked: Type.Boolean({ description: 'true: the ticket was revoked; a device drops it from its roster' }),
    },
    { description: 'A ticket as a device keeps it to find holders and groups offline; the latest line of a tid holds' },
  ),
);

const forbidden = errorAnswer(403, {
  description: 'FORBIDDEN: the key is for another event, or may not find holders (`details.reason` `allow_search`)',
});

export const rosterSchema = {
  operationId: 'getRoster',
  summary: "The event's roster, for finding holders and groups offline",
  description:
    'For keys enrolled with `allow_search` (others get 403 before anything is read). Tickets in the order of their ' +
    'last change: without `cursor` every ticket, then, from a `next_cursor`, only those changed since (name, type, ' +
    '`order_ref`, notes, revocation), each again in full; `revoked: true` tells a device to drop it. Following ' +
    '`next_cursor` misses no change, even one committed late on another instance. Rate limited like the changes feed.',
  tags: ['scanner'],
  security: ScannerAuth,
  params: Type.Object({ eid: Id() }),
  querystring: RosterQuery,
  response: {
    200: json(
      'A page of the roster',
      named('RosterPage', Type.Object({ tickets: Type.Array(RosterEntry), ...PAGING })),
      {
        examples: {
          page: {
            summary: 'The first page of a small event',
            value: {
              tickets: [
                {
                  tid: EXAMPLE.tid,
                  holder_name: 'Ada Lovelace',
                  ticket_type: 'GA',
                  order_ref: 'ORDER-1042',
                  attention: false,
                  checkin_text: null,
                  short_code: 'K7M2Q-9XW4D',
                  revoked: false,
                },
              ],
              next_cursor: `3.${EXAMPLE.tid}`,
              has_more: false,
            },
          },
        },
      },
    ),
    ...errors(400, 401),
    403: forbidden,
    ...errors(429, 500),
  },
};

export const codesSchema = {
  operationId: 'listShortCodes',
  summary: "The event's short codes as digests, for resolving a typed code offline",
  description:
    'For any key of the event. `digest` is the lowercase hex SHA-256 of the code’s 10 characters in upper case, ' +
    'without the dash: a device hashes what was typed (normalized as the by-code route does) and looks it up, and ' +
    'judges the ticket by its `ticket_type`’s rules (gates, days, hours, limits). Paged ' +
    'like the roster, changes since the cursor included. Rate limited like the changes feed.',
  tags: ['scanner'],
  security: ScannerAuth,
  params: Type.Object({ eid: Id() }),
  querystring: RosterQuery,
  response: {
    200: json(
      'A page of digests',
      named(
        'ShortCodePage',
        Type.Object({
          codes: Type.Array(
            Type.Object({
              digest: Type.String({ pattern: '^[0-9a-f]{64}$' }),
              tid: Type.String(),
              ticket_type: Type.String({ description: 'the ticket’s type, whose rules judge it offline' }),
            }),
          ),
          ...PAGING,
        }),
      ),
    ),
    ...errors(400, 401),
    403: errorAnswer(403, { description: 'FORBIDDEN: the key is for another event' }),
    ...errors(429, 500),
  },
};
