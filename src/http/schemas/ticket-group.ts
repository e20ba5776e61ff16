import { Type } from '@sinclair/typebox';
import { MAX_ORDER_REF_LENGTH } from '../../domain/order-ref.ts';
import { Nullable } from './common.ts';

/** A ticket's order in a request; its rules are checked by the issuer, naming the field. */
const OrderRefIn = Nullable(
  Type.String({
    // A bound for the parser only: the issuer refuses anything over 64 characters, naming `order_ref`.
    maxLength: 4 * MAX_ORDER_REF_LENGTH,
    description:
      `the order or booking the ticket belongs to: the tickets of one order are a group, checked in together at the ` +
      `gate. At most ${MAX_ORDER_REF_LENGTH} characters; trimmed, and null or empty means none`,
  }),
);

/** The group fields a ticket may be issued with, or changed to later. */
export const TICKET_GROUP_IN = { order_ref: Type.Optional(OrderRefIn) };

/** What every admin ticket answer carries of its group and its short code (the code absent for a viewer). */
export const TICKET_GROUP_OUT = {
  order_ref: Nullable(Type.String(), { description: 'the order or booking the ticket belongs to, or null' }),
  short_code: Type.Optional(
    Type.String({
      pattern: '^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$',
      description:
        'the code a holder reads out or types when the QR code will not scan: 10 Crockford base32 characters, ' +
        'shown `XXXXX-XXXXX`, random, unique within the event. Absent for a viewer, like the token',
    }),
  ),
};
