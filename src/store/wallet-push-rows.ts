/** The wallet outbox's SQL shared by both stores (`?` placeholders; PostgreSQL numbers them) and its row mapping. */
import type { ClaimedWalletPush, WalletPushRecord } from './wallet-push-records.ts';

/** One push per channel turned on: params tid, eid, kind, next_attempt_at, created_at. */
export const ENQUEUE_WALLET_PUSHES = `
  INSERT INTO wallet_pushes (channel, tid, eid, kind, state, next_attempt_at, created_at)
  SELECT channel, ?, ?, ?, 'pending', ?, ? FROM wallet_channels`;

export const WALLET_PUSHES_OF = 'SELECT * FROM wallet_pushes WHERE tid = ? ORDER BY push_id';

/** Claimed pushes with their tickets as they stand, in claim order (SQLite): param a JSON array of push ids. */
export const CLAIMED_PUSHES = `
  SELECT p.*, t.ticket_token, t.revoked_at FROM wallet_pushes p JOIN tickets t ON t.tid = p.tid
   WHERE p.push_id IN (SELECT value FROM json_each(?)) ORDER BY p.next_attempt_at, p.push_id`;

/** The end of one attempt, under its claim: params state, next_attempt_at, status, error, finished_at, push_id, lease. */
export const RECORD_WALLET_PUSH = `
  UPDATE wallet_pushes SET state = ?, attempts = attempts + 1, next_attempt_at = COALESCE(?, next_attempt_at),
         last_status = ?, last_error = ?, finished_at = ?, lease_until = NULL, lease_owner = NULL
   WHERE push_id = ? AND lease_owner = ? AND state = 'pending'`;

export function toWalletPush(row: Record<string, unknown>): WalletPushRecord {
  return {
    push_id: Number(row.push_id),
    channel: row.channel as WalletPushRecord['channel'],
    tid: row.tid as string,
    eid: row.eid as string,
    kind: row.kind as WalletPushRecord['kind'],
    state: row.state as WalletPushRecord['state'],
    attempts: Number(row.attempts),
    next_attempt_at: row.next_attempt_at as string,
    created_at: row.created_at as string,
    finished_at: (row.finished_at as string | null) ?? null,
    last_status: row.last_status === null || row.last_status === undefined ? null : Number(row.last_status),
    last_error: (row.last_error as string | null) ?? null,
  };
}

export function toClaimedPush(row: Record<string, unknown>): ClaimedWalletPush {
  return {
    ...toWalletPush(row),
    lease: row.lease_owner as string,
    ticket_token: row.ticket_token as string,
    revoked_at: (row.revoked_at as string | null) ?? null,
  };
}
