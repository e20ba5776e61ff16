/**
 * The wallet outbox: one push per change of a ticket that a saved pass must follow (a revocation, a
 * reissue), per wallet channel turned on, written by the change's own transaction.
 */

/** A wallet whose passes the issuer updates through its service (Google Wallet's REST API). */
export type WalletChannel = 'google';
/** The change a push carries to the pass. */
export type WalletPushKind = 'revoked' | 'reissued';
export type WalletPushState = 'pending' | 'done' | 'failed';

export interface WalletPushRecord {
  push_id: number;
  channel: WalletChannel;
  tid: string;
  eid: string;
  kind: WalletPushKind;
  state: WalletPushState;
  attempts: number;
  next_attempt_at: string;
  created_at: string;
  finished_at: string | null;
  /** The service's status of the last attempt; null when it gave no answer. */
  last_status: number | null;
  /** What went wrong last (a short text), or null. */
  last_error: string | null;
}

/**
 * A push taken by a worker, with what it sends: the ticket as it stands now (a revoked ticket's object
 * becomes INACTIVE; otherwise its barcode is the current token), so a late or repeated push never
 * brings back an older state.
 */
export interface ClaimedWalletPush extends WalletPushRecord {
  /** The claim's own token: a result is recorded only under it. */
  lease: string;
  ticket_token: string;
  revoked_at: string | null;
}

/** How an attempt ended: `done`, `failed` for good, or `retry` at `next_attempt_at`. */
export interface WalletPushResult {
  push_id: number;
  lease: string;
  outcome: 'done' | 'retry' | 'failed';
  at: string;
  next_attempt_at: string | null;
  status: number | null;
  error: string | null;
}

/** The wallet outbox (both stores: `wallet-pushes.ts`). */
export interface WalletPushStore {
  /** Turns a channel on or off for every instance: each later revocation or reissue enqueues one push per channel on. */
  setChannel(channel: WalletChannel, on: boolean): Promise<void>;
  /** Takes up to `limit` due pushes of the channel, each under a fresh lease until `leaseUntil`: no two claims hold one push. */
  claim(channel: WalletChannel, now: string, leaseUntil: string, limit: number): Promise<ClaimedWalletPush[]>;
  /** Records attempts' ends, each only if its push is still under the claim that made it; answers how many were. */
  record(results: readonly WalletPushResult[]): Promise<number>;
  /** A ticket's pushes, oldest first. */
  pushesOf(tid: string): Promise<WalletPushRecord[]>;
}
