import { Type } from '@sinclair/typebox';
import { TICKET_STATES } from '@ticket-issuer/protocol';
import { named, StringEnum } from './components.ts';
import { errorAnswer, errorExample, errors, Id, json, ScannerAuth } from './common.ts';
import { EXAMPLE } from './examples.ts';

/** A ticket as a gate sees its holder (the holder search and a ticket's group). */
export const HOLDER_AT_GATE = {
  tid: Type.String(),
  holder_name: Type.String(),
  ticket_type: Type.String(),
  status: StringEnum(TICKET_STATES, { description: 'as the status endpoint says it' }),
  inside: Type.Boolean({ description: 'whether the holder is inside now (came in and has not gone out)' }),
  attention: Type.Boolean({ description: 'the holder needs attention (the ticket type’s flag or the ticket’s)' }),
  checkin_texts: Type.Array(Type.String(), {
    description: 'texts for the gate: the ticket type’s, then the ticket’s',
  }),
};

const FoundHolder = named(
  'FoundHolder',
  Type.Object(HOLDER_AT_GATE, { description: 'A ticket found by its holder’s name' }),
);

export const findHoldersSchema = {
  operationId: 'findHolders',
  summary: 'Find a holder by name (for a holder whose phone died)',
  description:
    'For a scanner key enrolled with an enrolment token created with `allow_search: true` (`scope.allow_search`); ' +
    'any other key gets 403 before anything is searched. At most 10 tickets of the event whose holder name ' +
    'contains `q`, ignoring case, accents and punctuation, best matches first: the whole name, then a name ' +
    'starting with `q`, then one with a word starting with it, then one containing it. Check the chosen one in ' +
    'with `manual: true` and no `ticket_token`. Rate limited like the status endpoint (one allowance for both).',
  tags: ['scanner'],
  security: ScannerAuth,
  params: Type.Object({ eid: Id() }),
  querystring: Type.Object({
    q: Type.String({
      maxLength: 200,
      description: 'part of the holder’s name: at least 3 letters or digits (punctuation and spaces do not count)',
    }),
  }),
  response: {
    200: json(
      'The best matches, at most 10',
      named('FoundHolders', Type.Object({ tickets: Type.Array(FoundHolder) })),
      {
        examples: {
          found: {
            summary: 'A search for "lovel"',
            value: {
              tickets: [
                {
                  tid: EXAMPLE.tid,
                  holder_name: 'Ada Lovelace',
                  ticket_type: 'GA',
                  status: 'valid',
                  inside: false,
                  attention: false,
                  checkin_texts: [],
                },
              ],
            },
          },
        },
      },
    ),
    400: errorAnswer(400, {
      description: 'INVALID_REQUEST: `q` is missing, or holds fewer than 3 letters or digits',
      examples: {
        short: {
          summary: 'Two letters',
          value: errorExample('INVALID_REQUEST', 'q must hold at least 3 letters or digits', {
            fields: [{ field: 'q', problem: 'must hold at least 3 letters or digits' }],
          }),
        },
      },
    }),
    401: errorAnswer(401),
    403: errorAnswer(403, {
      description: 'FORBIDDEN: the key is for another event, or may not find holders (`details.reason` `allow_search`)',
    }),
    ...errors(429, 500),
  },
};
