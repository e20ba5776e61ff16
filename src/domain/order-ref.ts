import { invalidRequest } from './errors.ts';

/** The most characters of a ticket's `order_ref` (the contract's limit). */
export const MAX_ORDER_REF_LENGTH = 64;

/** What a request is told when its order_ref is not one. */
export const ORDER_REF_PROBLEM = `must be text of at most ${MAX_ORDER_REF_LENGTH} characters, without control characters`;

const CONTROL = /\p{Cc}/u;

/**
 * A ticket's `order_ref` (the order or booking whose tickets are a group) as kept: trimmed, null for
 * none (null, or an empty CSV cell), else at most 64 characters without control characters; anything
 * else is refused, naming `field`.
 */
export function orderRef(field: string, value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  const ref = value.trim();
  if (ref === '') return null;
  if ([...ref].length > MAX_ORDER_REF_LENGTH || CONTROL.test(ref)) {
    throw invalidRequest(`${field} is not an order reference`, [{ field, problem: ORDER_REF_PROBLEM }]);
  }
  return ref;
}
