/** A user's passkey as the account page and the ceremonies see it (table `passkeys`, migration 0017). */
export interface Passkey {
  /** The authenticator's credential id (16–1023 bytes, WebAuthn L3 §7.1 step 25). */
  credentialId: Buffer;
  userId: string;
  /** The opaque user handle given at registration; an assertion's userHandle must equal it. */
  userHandle: Buffer;
  /** COSE_Key of the credential (WebAuthn L3 §6.5.1.1). */
  publicKey: Buffer;
  /** The last signature counter seen (§6.1.1). */
  signCount: number;
  transports: string[];
  name: string;
  aaguid: string;
  /** BE flag: a synced (multi-device) credential. */
  backupEligible: boolean;
  /** BS flag as last seen. */
  backedUp: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** The passkey with its (enabled) owner's name, for sign-in. */
export interface PasskeyWithUser extends Passkey {
  username: string;
}

export type NewPasskey = Omit<Passkey, 'createdAt' | 'lastUsedAt'>;

/** Implemented by storage/passkeys.repo.ts. */
export interface PasskeysRepo {
  listByUser(userId: string): Promise<Passkey[]>;
  countByUser(userId: string): Promise<number>;
  /** The passkey and its owner, when the owner is enabled. */
  findForSignIn(credentialId: Buffer): Promise<PasskeyWithUser | undefined>;
  /**
   * Saves a new passkey unless the user already has `max` of them or the credential id is known (to this
   * user or another: WebAuthn L3 §7.1 step 26). Returns what stopped it, or 'saved'.
   */
  save(passkey: NewPasskey, max: number): Promise<'saved' | 'limit' | 'duplicate'>;
  /**
   * Records a use: the new counter, the BS flag and the time, only if the stored counter is still the one
   * checked (compare and set: two assertions with the same counter cannot both pass). False: it changed.
   */
  recordUse(
    credentialId: Buffer,
    checkedCount: number,
    newCount: number,
    backedUp: boolean,
    at: Date,
  ): Promise<boolean>;
  rename(userId: string, credentialId: Buffer, name: string): Promise<boolean>;
  delete(userId: string, credentialId: Buffer): Promise<boolean>;
  deleteAllOfUser(userId: string): Promise<number>;
}

export type ChallengePurpose = 'registration' | 'authentication';

/** Implemented by storage/passkey-challenges.repo.ts: single-use challenges kept server side. */
export interface PasskeyChallengesRepo {
  /** Stores the browser's challenge for this purpose, replacing any earlier one. */
  put(entry: {
    bindingHash: Buffer;
    purpose: ChallengePurpose;
    challenge: string;
    userId: string | null;
    expiresAt: Date;
    /** Rows expired by then are removed as this one is written. */
    now: Date;
  }): Promise<void>;
  /** Takes (deletes) the browser's challenge for this purpose; undefined when none or expired. */
  take(
    bindingHash: Buffer,
    purpose: ChallengePurpose,
    now: Date,
  ): Promise<{ challenge: string; userId: string | null } | undefined>;
}
