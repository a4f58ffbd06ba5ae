/** One back-channel logout to deliver: a client, the user and the browser session that ended. */
export interface DueDelivery {
  deliveryId: string;
  clientId: string;
  uri: string;
  userId: string;
  sid: string | null;
  jti: string;
  /** Attempts so far, this one included. */
  attempts: number;
}

/**
 * The outbox of OIDC Back-Channel Logout 1.0 deliveries (migration 0007; storage/backchannel-logout.repo.ts). Rows are claimed with
 * FOR UPDATE SKIP LOCKED and a lease (next_attempt_at moved forward at claim), so any instance may
 * deliver, two never deliver one row at once, and a process dying mid-delivery leaves the row due again.
 */
export interface BackchannelLogoutRepo {
  /** One row per client with a back-channel URI that has a grant in one of these sessions of the user. */
  enqueueForSessions(userId: string, sids: string[]): Promise<number>;
  /** Claims up to `limit` due rows, counting the attempt and leasing each for `leaseMs` (the attempt's
   *  longest time: a process dying mid-delivery leaves the row due again after it). */
  claimDue(limit: number, leaseMs: number): Promise<DueDelivery[]>;
  remove(deliveryId: string): Promise<void>;
  /** Records the failure; the row is due again in `retryInMs`. */
  recordFailure(deliveryId: string, error: string, retryInMs: number): Promise<void>;
  /** Milliseconds until the next row is due (0 if one is due now), or null when none is pending. */
  msUntilNextDue(): Promise<number | null>;
}
