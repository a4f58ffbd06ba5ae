import type { Acr, AuthenticationMethod } from './authentication-methods';

/** Which sign-in a challenge finishes: the pages' (/login) or the admin console's (migration 0021). */
export type MfaChallengePurpose = 'pages' | 'console';

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
  save(
    challengeHash: Buffer,
    challenge: Omit<MfaChallenge, 'username'>,
    purpose?: MfaChallengePurpose,
  ): Promise<void>;
  /** The live challenge of an enabled user for this purpose (default 'pages'), or null. */
  find(challengeHash: Buffer, now: Date, purpose?: MfaChallengePurpose): Promise<MfaChallenge | null>;
  /** Deletes it; false when it was gone already (a second request with the same cookie loses). */
  delete(challengeHash: Buffer): Promise<boolean>;
  /** Removes up to `limit` expired rows; returns how many. */
  deleteExpired(now: Date, limit: number): Promise<number>;
}
