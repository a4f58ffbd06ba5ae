import type { Acr, AuthenticationMethod } from './authentication-methods';

/** A sign-in (or a session's step-up) waiting for its second factor (table mfa_challenges, 0016). */
export interface MfaChallenge {
  userId: string;
  username: string;
  /** The methods already used (['pwd'] after the password; a step-up: the session's). */
  amr: AuthenticationMethod[];
  /** A step-up: the keyed hash of the session being raised; null: a new sign-in. */
  sessionHash: Buffer | null;
  /** Where to go after (a checked local path, see authorize-params.ts parseReturnTo). */
  returnTo: string;
  /** A step-up for acr_values: the level the second factor must reach (0020); null: any will do. */
  wantedAcr: Acr | null;
  expiresAt: Date;
}

/** Implemented by storage/mfa-challenges.repo.ts. Only a keyed hash of the cookie's value is stored. */
export interface MfaChallengesRepo {
  save(challengeHash: Buffer, challenge: Omit<MfaChallenge, 'username'>): Promise<void>;
  /** The live challenge of an enabled user, or null. */
  find(challengeHash: Buffer, now: Date): Promise<MfaChallenge | null>;
  /** Deletes it; false when it was gone already (a second request with the same cookie loses). */
  delete(challengeHash: Buffer): Promise<boolean>;
  /** Removes up to `limit` expired rows; returns how many. */
  deleteExpired(now: Date, limit: number): Promise<number>;
}
