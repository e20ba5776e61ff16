/**
 * The `data` of each webhook message, as the contract fixes it, built from what the change's
 * transaction has in hand (`position` is added by the outbox from the feed, where there is one).
 */
import type { ApiKeyRecord, CheckInAttempt, TicketRecord } from './store.ts';
import type { OutboxMessage } from './webhook-records.ts';

/** Stored instants as the API shows them (no `.000` milliseconds). */
const wire = (stored: string) => (stored.endsWith('.000Z') ? `${stored.slice(0, -5)}Z` : stored);

type Message = Omit<OutboxMessage, 'position'>;

export function checkedInMessage(ticket: TicketRecord, attempt: CheckInAttempt, at: string): Message {
  return {
    type: 'ticket.checked_in',
    eid: attempt.eid,
    occurred_at: attempt.received_at,
    data: {
      eid: attempt.eid,
      tid: attempt.tid,
      holder_name: ticket.holder_name,
      ticket_type: ticket.ticket_type,
      checked_in_at: wire(at),
      scanner_id: attempt.scanner_id,
      gate_id: attempt.gate_id,
      admitted_offline: attempt.admitted_offline === true,
    },
  };
}

/** An annulled entry's message: who made the entry, where, and when it was undone. */
export function annulledMessage(
  entry: { eid: string; tid: string; scanner_id: string; gate_id: string | null },
  annulledAt: string,
  now: string,
): Message {
  return {
    type: 'ticket.check_in_annulled',
    eid: entry.eid,
    occurred_at: now,
    data: {
      eid: entry.eid,
      tid: entry.tid,
      scanner_id: entry.scanner_id,
      gate_id: entry.gate_id,
      annulled_at: wire(annulledAt),
    },
  };
}

/** The exit's message; `scanner_id` and `gate_id` are null for an automatic exit (no scanner, no gate). */
export function checkedOutMessage(
  attempt: Pick<CheckInAttempt, 'eid' | 'tid' | 'received_at' | 'gate_id'> & { scanner_id: string | null },
  at: string,
): Message {
  return {
    type: 'ticket.checked_out',
    eid: attempt.eid,
    occurred_at: attempt.received_at,
    data: {
      eid: attempt.eid,
      tid: attempt.tid,
      checked_out_at: wire(at),
      scanner_id: attempt.scanner_id,
      gate_id: attempt.gate_id,
    },
  };
}

/** The message of an automatic exit at `at`, the start of an event day, made at `now`. */
export function autoExitMessage(eid: string, tid: string, at: string, now: string): Message {
  return checkedOutMessage({ eid, tid, received_at: now, scanner_id: null, gate_id: null }, at);
}

export function revokedMessage(ticket: TicketRecord, at: string, reason: string | null): Message {
  return {
    type: 'ticket.revoked',
    eid: ticket.eid,
    occurred_at: at,
    data: { eid: ticket.eid, tid: ticket.tid, revoked_at: wire(at), reason },
  };
}

/** The new token's `jti`, read from its payload (the issuer signed it a moment ago). */
function jtiOf(token: string): string | null {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      jti?: unknown;
    };
    return typeof payload.jti === 'string' ? payload.jti : null;
  } catch {
    return null;
  }
}

export function reissuedMessage(
  ticket: TicketRecord,
  nextToken: string,
  supersededJti: string | null,
  at: string,
): Message {
  return {
    type: 'ticket.reissued',
    eid: ticket.eid,
    occurred_at: at,
    data: { eid: ticket.eid, tid: ticket.tid, jti: jtiOf(nextToken), superseded_jti: supersededJti },
  };
}

export function enrolledMessage(key: ApiKeyRecord, at: string): OutboxMessage {
  return {
    type: 'scanner.enrolled',
    eid: key.eid,
    occurred_at: at,
    position: null,
    data: {
      eid: key.eid,
      scanner_id: key.scanner_id,
      name: key.scanner_name,
      api_key_id: key.api_key_id,
      gate_id: key.gate_id,
    },
  };
}

export function scannerRevokedMessage(key: ApiKeyRecord, at: string): OutboxMessage {
  return {
    type: 'scanner.revoked',
    eid: key.eid,
    occurred_at: at,
    position: null,
    data: { eid: key.eid, api_key_id: key.api_key_id },
  };
}
