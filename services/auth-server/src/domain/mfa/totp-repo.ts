/** A user's authenticator app (RFC 6238). The secret is sealed (domain/crypto/key-encryption.ts). */
export interface TotpRecord {
  userId: string;
  secretCiphertext: string;
  /** null: enrolment started, not yet proven with a code: not a factor. */
  confirmedAt: Date | null;
  /** The RFC 6238 time step of the last accepted code (null: none yet). */
  lastTimeStep: number | null;
}

/** Implemented by storage/user-totp.repo.ts (table user_totp, migration 0016). */
export interface TotpRepo {
  find(userId: string): Promise<TotpRecord | null>;
  /** Starts (or restarts) an enrolment with a new secret; refuses (false) when TOTP is already on. */
  savePending(userId: string, secretCiphertext: string): Promise<boolean>;
  /**
   * Accepts `timeStep` once: records it when it is later than the last accepted one (and, with `confirm`,
   * turns a pending enrolment on). One UPDATE, so two requests with the same code cannot both win.
   */
  acceptTimeStep(userId: string, timeStep: number, options: { confirm: boolean }): Promise<boolean>;
  /** Removes the authenticator (on or pending); returns whether there was one. */
  delete(userId: string): Promise<boolean>;
}

/** Implemented by storage/recovery-codes.repo.ts (table recovery_codes, migration 0016). */
export interface RecoveryCodesRepo {
  /** Replaces every code of the user with these (keyed hashes). */
  replace(userId: string, codeHashes: Buffer[]): Promise<void>;
  /** Marks the unused code with this hash used; false when there is none (unknown or used). */
  use(userId: string, codeHash: Buffer): Promise<boolean>;
  countUnused(userId: string): Promise<number>;
  /** Removes every code of the user; returns how many. */
  deleteAll(userId: string): Promise<number>;
}
