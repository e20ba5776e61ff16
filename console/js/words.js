/**
 * Numbers, times and the issuer's refusals as an organizer reads them: "1 exit", "2 min ago",
 * "The end must be after the start". Pure (no DOM), so Node's test runner loads it as it is served.
 */

/** A count with its noun: `plural(1, 'exit')` is "1 exit", `plural(2, 'entry', 'entries')` "2 entries". */
export function plural(count, one, many = `${one}s`) {
  return `${count} ${count === 1 ? one : many}`;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** How long ago an instant was, in words: "just now", "2 min ago", "3 h ago", "2 days ago"; "never" for none. */
export function ago(iso, now = Date.now()) {
  if (!iso) return 'never';
  const elapsed = Math.max(0, now - Date.parse(iso));
  if (elapsed < MINUTE) return 'just now';
  if (elapsed < HOUR) return `${Math.floor(elapsed / MINUTE)} min ago`;
  if (elapsed < DAY) return `${Math.floor(elapsed / HOUR)} h ago`;
  return `${plural(Math.floor(elapsed / DAY), 'day')} ago`;
}

/** How long until an instant, in words: "in 5 min", "in 3 h", "in 2 days"; "passed" once it has. */
export function until(iso, now = Date.now()) {
  const left = Date.parse(iso) - now;
  if (left <= 0) return 'passed';
  if (left < HOUR) return `in ${Math.max(1, Math.floor(left / MINUTE))} min`;
  if (left < DAY) return `in ${Math.floor(left / HOUR)} h`;
  return `in ${plural(Math.floor(left / DAY), 'day')}`;
}

/** The words of the issuer's field problems that a form shows (field name → what to say). */
const FIELD_PROBLEMS = {
  ends_at: 'The end must be after the start.',
  event_date: 'The event date is not a valid date.',
  name: 'The name is missing or too long.',
  capacity: 'The capacity must be a whole number from 1.',
  timezone: 'The time zone is not one the issuer knows (e.g. Europe/Paris).',
};

/**
 * A refusal of the issuer in words: a field problem the console knows is said as a sentence (never
 * "ends_at precedes event_date"); anything else keeps the issuer's own message.
 */
export function refusal(error) {
  const fields = error?.details?.fields ?? [];
  const known = fields.map((problem) => FIELD_PROBLEMS[problem.field]).filter(Boolean);
  return known.length > 0 ? [...new Set(known)].join(' ') : (error?.message ?? String(error));
}

/**
 * A gate as the organizer declared it: "North gate (north)", "gate north (not declared)", or
 * "any gate" for none. `gates`: the event's declared gates.
 */
export function gateText(gateId, gates) {
  if (gateId === null || gateId === undefined) return 'any gate';
  const declared = gates.find((gate) => gate.gate_id === gateId);
  return declared ? `${declared.name} (${gateId})` : `gate ${gateId} (not declared)`;
}

/** The declared gate a typed id names: exactly, or in another case (as the issuer stores it); else null. */
export function declaredGate(typed, gates) {
  const exact = gates.find((gate) => gate.gate_id === typed);
  if (exact) return exact;
  const folded = typed.toLowerCase();
  return gates.find((gate) => gate.gate_id.toLowerCase() === folded) ?? null;
}

/** True for an address phones at a venue cannot reach: localhost, 127.0.0.0/8, ::1, 0.0.0.0. */
export function isLoopback(hostname) {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    host === 'localhost' || host.endsWith('.localhost') || /^127\./.test(host) || host === '::1' || host === '0.0.0.0'
  );
}

/** Where a person's invitation stands (the API's `invitation`), in words. */
export function invitationText(state) {
  if (state === 'pending') return 'invitation pending';
  if (state === 'accepted') return 'invitation accepted';
  return 'no open invitation';
}

/**
 * What making a new invitation link for a person does, said before it is made: the open link it ends,
 * or the password it lets someone replace.
 */
export function newLinkWarning(name, state) {
  if (state === 'pending') {
    return `The link made earlier for ${name} stops working at once: only the new one can set their password.`;
  }
  if (state === 'accepted') {
    return `${name} has set a password. Whoever opens the new link can set another, which ends ${name}’s sessions and API tokens.`;
  }
  return `${name} has no open link; the new one sets their password, once, within 72 hours.`;
}

/**
 * An event's emails in words (the deliveries list's `counts`): "3 tickets have an email: 1 sent,
 * 1 failed, 0 queued, 1 not sent yet."
 */
export function emailCountsText(counts) {
  if (counts.with_email === 0) return 'No ticket has an email yet: add emails in the import (column email).';
  const unsent = Math.max(0, counts.with_email - counts.queued - counts.sent - counts.failed);
  return (
    `${counts.with_email} ${counts.with_email === 1 ? 'ticket has' : 'tickets have'} an email: ` +
    `${counts.sent} sent, ${counts.failed} failed, ${counts.queued} queued, ${unsent} not sent yet.`
  );
}

/**
 * A ticket's email (its `delivery`) in words: "Not sent", "Queued", "Sent <time>" or "Failed: <the
 * server's reply>". `when` writes the time.
 */
export function deliveryText(delivery, when) {
  if (!delivery) return 'Not sent';
  if (delivery.status === 'sent') return `Sent ${when(delivery.sent_at)}`;
  if (delivery.status === 'failed') return `Failed: ${delivery.last_error ?? 'no reason given'}`;
  return 'Queued';
}
