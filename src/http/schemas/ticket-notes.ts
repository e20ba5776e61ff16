import { Type } from '@sinclair/typebox';
import { MAX_CHECKIN_TEXT } from '../../domain/ticket-notes.ts';
import { InstantIn, Nullable, Text } from './common.ts';

const CheckinTextIn = Nullable(Text(MAX_CHECKIN_TEXT, 0), {
  description: `a text shown at the gate when the ticket is scanned (at most ${MAX_CHECKIN_TEXT} characters), or null; trimmed, and empty means none`,
});
const AttentionIn = Type.Boolean({ description: 'the holder needs attention at the gate (default false)' });

/** The gate notes a ticket may be issued with, or changed to later. */
export const TICKET_NOTES_IN = {
  attention: Type.Optional(AttentionIn),
  checkin_text: Type.Optional(CheckinTextIn),
};

/** The fields of a new ticket beside its holder, type, expiry and external_id. */
export const NEW_TICKET_RULES_IN = {
  valid_from: Type.Optional(
    Nullable(InstantIn, {
      description: 'not valid for entry before this instant (the token carries it as nbf, in whole seconds), or null',
    }),
  ),
  ...TICKET_NOTES_IN,
};

/** What every admin ticket answer carries of its entry rules and gate notes. */
export const TICKET_RULES_OUT = {
  valid_from: Nullable(Type.String(), {
    description: 'ISO 8601 UTC timestamp: not valid for entry before it; null when valid from issue',
  }),
  attention: Type.Boolean({ description: 'the holder needs attention at the gate' }),
  checkin_text: Nullable(Type.String(), { description: 'the text shown at the gate for this ticket, or null' }),
};
