/** Apple Wallet: devices registered for passes, each pass's last change, and the push outbox. */

/** A device's registration for one pass (PassKit's web service). */
export interface ApplePassRegistration {
  device_id: string;
  pass_type_id: string;
  /** The pass's serial number: the ticket's tid. */
  serial: string;
  push_token: string;
  at: string;
}

/** A push taken under a lease (see claimApplePushes). */
export interface ClaimedApplePush {
  push_id: string;
  push_token: string;
  pass_type_id: string;
  /** Attempts made before this one. */
  attempts: number;
  lease_owner: string;
}

/** How one push attempt ended: `retry` is due again at `next_attempt_at`; `unregistered` ends the device's registrations. */
export interface ApplePushResult {
  push_id: string;
  lease_owner: string;
  outcome: 'sent' | 'retry' | 'failed' | 'unregistered';
  error: string | null;
  at: string;
  next_attempt_at: string | null;
}

export interface ApplePushClaim {
  now: string;
  leaseSeconds: number;
  limit: number;
}

/** Every method is one transaction; each says what it guarantees. */
export interface ApplePassStore {
  /**
   * Registers a device for a pass, or gives an existing registration the new push token: 'created' or
   * 'updated'. Concurrent registrations of one device and pass make one row; one of them is 'created'.
   */
  registerApplePassDevice(registration: ApplePassRegistration): Promise<'created' | 'updated'>;
  /** Removes a device's registration for a pass; false when there was none. */
  unregisterApplePassDevice(deviceId: string, passTypeId: string, serial: string): Promise<boolean>;
  /**
   * The serial numbers the device is registered for (of this pass type) whose pass changed after `since`
   * (all of them when null), and the latest change time among them (null when there are none). A pass
   * never changed counts as changed at its ticket's issue.
   */
  listApplePassSerials(
    deviceId: string,
    passTypeId: string,
    since: string | null,
  ): Promise<{ serials: string[]; lastUpdated: string | null }>;
  /** When the ticket's pass last changed (its issue time if never since); null for an unknown ticket. */
  applePassChangedAt(tid: string): Promise<string | null>;
  /**
   * Takes up to `limit` due pending pushes, each under a lease of its own (a fresh owner token, until now
   * plus `leaseSeconds`): no two workers, on any instance, attempt one push at the same moment.
   */
  claimApplePushes(claim: ApplePushClaim): Promise<ClaimedApplePush[]>;
  /**
   * Records the ends of attempts, each only while its lease is still the one that made it: sent, failed,
   * or pending again at its next attempt; an `unregistered` push fails and deletes every registration
   * with its push token.
   */
  finishApplePushes(results: ApplePushResult[]): Promise<void>;
  /** Deletes up to `limit` sent or failed pushes that ended before `before`; how many. */
  purgeApplePushes(before: string, limit: number): Promise<number>;
  /** The pushes of a push token, oldest first (for tests and support). */
  listApplePushes(
    pushToken: string,
  ): Promise<{ push_id: string; state: string; attempts: number; last_error: string | null }[]>;
}
