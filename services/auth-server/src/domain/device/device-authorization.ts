/** RFC 8628 §3.4: the grant_type of the device's poll at /token. */
export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

export type DeviceAuthorizationStatus = 'pending' | 'approved' | 'denied' | 'consumed';

/** One device authorization request (RFC 8628 §3.1) and what became of it. Codes are stored hashed. */
export interface DeviceAuthorization {
  userCodeHash: Buffer;
  deviceCodeHash: Buffer;
  clientId: string;
  scopes: string[];
  /** The access token's audience, resolved at the request (RFC 8707). */
  resources: string[];
  status: DeviceAuthorizationStatus;
  /** Who approved or denied. */
  userId: string | null;
  /** The grant made on approval. */
  grantId: string | null;
  authTime: Date | null;
  intervalSeconds: number;
  lastPolledAt: Date | null;
  expiresAt: Date;
}

/** The row a poll locked, with its grant's revocation and the database's clock (one clock for every instance). */
export interface PolledDeviceAuthorization extends DeviceAuthorization {
  grantRevokedAt: Date | null;
  now: Date;
}

/** A pending, unexpired authorization as the user-code page shows it. */
export interface PendingDeviceAuthorization {
  userCodeHash: Buffer;
  clientId: string;
  clientName: string;
  scopes: string[];
  resources: string[];
}

/** Implemented by storage/device-authorizations.repo.ts. Expiry is judged by the database's clock. */
export interface DeviceAuthorizationsRepo {
  /** Stores a new pending request; false (nothing stored) when its user code hash is taken. */
  create(request: {
    userCodeHash: Buffer;
    deviceCodeHash: Buffer;
    clientId: string;
    scopes: string[];
    resources: string[];
    intervalSeconds: number;
    ttlSeconds: number;
  }): Promise<boolean>;
  /** The row of a device code, locked until the transaction ends (polls of one device run one at a time). */
  lockForPoll(userCodeHash: Buffer, deviceCodeHash: Buffer): Promise<PolledDeviceAuthorization | undefined>;
  /** A pending poll: its time, and the interval it must keep from now on. */
  recordPoll(userCodeHash: Buffer, intervalSeconds: number): Promise<void>;
  markConsumed(userCodeHash: Buffer): Promise<void>;
  /** The pending, unexpired request of a user code; `lock` holds it until the transaction ends. */
  findPending(
    userCodeHash: Buffer,
    options?: { lock: boolean },
  ): Promise<PendingDeviceAuthorization | undefined>;
  /** pending → approved by this user, under this grant. */
  approve(userCodeHash: Buffer, decision: { userId: string; grantId: string; authTime: Date }): Promise<void>;
  /** pending (and unexpired) → denied; false when there was no such request. */
  deny(userCodeHash: Buffer, userId: string): Promise<boolean>;
  /** Removes requests that expired before `before`. */
  deleteExpired(before: Date): Promise<number>;
}
