/**
 * What the page says when an enrolment fails: what happened and what to do, in words for whoever
 * holds the phone, never the issuer's status or error code. Pure, so that it is tested without a browser.
 */
import { IssuerHttpError, IssuerNetworkError, ScannerError } from '@ticket-issuer/scanner';

/** Where a new setup code comes from, as the console names it. */
const ASK_AGAIN =
  'Ask the organizer for a new one (console: the event’s Scanners, New enrolment token), then scan it or open its link.';

/** The enrolment token's fate, as the issuer's answer tells it (the reason when it gives one). */
function tokenWords(error: IssuerHttpError): string | null {
  const reason = typeof error.details.reason === 'string' ? error.details.reason : null;
  if (error.issuerCode === 'TOKEN_REVOKED' || reason === 'revoked') {
    return `This setup code was revoked in the console. ${ASK_AGAIN}`;
  }
  if (error.issuerCode !== 'INVALID_TOKEN') return null;
  if (reason === 'used') return `This setup code was already used: each one enrols a single phone. ${ASK_AGAIN}`;
  if (reason === 'expired') return `This setup code has expired. ${ASK_AGAIN}`;
  return `This setup code was already used or has expired (each one enrols a single phone, for a limited time). ${ASK_AGAIN}`;
}

function issuerWords(error: IssuerHttpError): string {
  const token = tokenWords(error);
  if (token !== null) return token;
  if (error.status === 429) {
    const wait = error.retryAfterSeconds === null ? 'a minute' : `${error.retryAfterSeconds} s`;
    return `Too many enrolment tries from here: wait ${wait}, then try again.`;
  }
  if (error.status >= 500 || error.issuerCode === 'INVALID_ANSWER') {
    return 'The issuer could not enrol this phone just now: try again in a moment.';
  }
  return `The issuer refused this setup code (${error.issuerMessage}). ${ASK_AGAIN}`;
}

/** The words for an enrolment that failed; `queued` is how many scans wait on this device. */
export function enrolmentProblem(error: unknown, queued = 0): string {
  let words: string;
  if (error instanceof IssuerHttpError) words = issuerWords(error);
  else if (error instanceof IssuerNetworkError) {
    words = 'The issuer did not answer. Check that this phone is on the venue’s network, then try again.';
  } else if (error instanceof ScannerError && error.code === 'INVALID_SETUP_URI') {
    // The page's own refusal of another issuer's code already says where to go.
    words = /open the scanner from/.test(error.message)
      ? `${error.message.charAt(0).toUpperCase()}${error.message.slice(1)}.`
      : 'That is not a setup code. Paste the Web scanner link or the setup URI the console shows, or scan its Web scanner QR code.';
  } else if (error instanceof ScannerError && error.code === 'ALREADY_ENROLLED') {
    const scans = queued === 1 ? '1 scan of the current event has' : `${queued} scans of the current event have`;
    // The issuer refused the code before using it: it still enrols a phone once the scans are synced.
    const unused = /not used/.test(error.message) ? ' The setup code was not used: it still works.' : '';
    words =
      `${scans} not reached the issuer yet, and this setup code is for another event.${unused} ` +
      'Sync them first (Sync now), or ask for a setup code of the same event.';
  } else if (error instanceof ScannerError && error.code === 'ISSUER_MISMATCH') {
    words = `This setup code names another issuer than the one that answered. ${ASK_AGAIN}`;
  } else words = error instanceof Error ? error.message : String(error);
  return `Enrolment failed. ${words}`;
}
