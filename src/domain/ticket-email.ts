import { invalidRequest } from './errors.ts';

/** The most characters of a ticket's email (the longest address SMTP carries). */
export const MAX_EMAIL_LENGTH = 254;

/** One `@` with something on each side, and nothing a mail header could not carry (spaces, controls). */
const EMAIL_SHAPE = /^[^@\s\p{Cc}]+@[^@\s\p{Cc}]+$/u;

/** What a request is told when its email is not one. */
export const EMAIL_PROBLEM = `must be an email address: at most ${MAX_EMAIL_LENGTH} characters, one @ with something on each side`;

/**
 * A ticket's `email` as kept: trimmed, null for none (null, or an empty CSV cell), else an address of
 * at most 254 characters with exactly one `@` and something on each side; anything else is refused,
 * naming `field`. Whether the address exists is the mail server's to say, not the issuer's.
 */
export function ticketEmail(field: string, value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  const email = value.trim();
  if (email === '') return null;
  if (email.length > MAX_EMAIL_LENGTH || !EMAIL_SHAPE.test(email)) {
    throw invalidRequest(`${field} is not an email address`, [{ field, problem: EMAIL_PROBLEM }]);
  }
  return email;
}
