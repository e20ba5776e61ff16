import { Type } from '@sinclair/typebox';
import { MAX_EMAIL_LENGTH } from '../../domain/ticket-email.ts';
import { Nullable } from './common.ts';

/** A ticket's email in a request; its rules are checked by the issuer, naming the field. */
const EmailIn = Nullable(
  Type.String({
    // A bound for the parser only: the issuer refuses anything over 254 characters, naming `email`.
    maxLength: 4 * MAX_EMAIL_LENGTH,
    description:
      `the holder's email address, where the ticket is sent: at most ${MAX_EMAIL_LENGTH} characters, one @ with ` +
      'something on each side, no spaces; trimmed, and null or empty means none',
  }),
);

/** The holder fields a ticket may be issued with, or changed to later. */
export const TICKET_HOLDER_IN = { email: Type.Optional(EmailIn) };

/** What every admin ticket answer carries for reaching its holder (both absent for a viewer). */
export const TICKET_HOLDER_OUT = {
  email: Type.Optional(
    Nullable(Type.String(), { description: "the holder's email address, or null; absent for a viewer" }),
  ),
  holder_url: Type.Optional(
    Type.String({
      description:
        "the holder's page (`<BASE_URL>/t/<holder token>`): the ticket, its QR code and its PDF, without signing " +
        'in; the same link after a reissue (it shows the new token). Absent for a viewer: it shows an entry credential',
    }),
  ),
};
