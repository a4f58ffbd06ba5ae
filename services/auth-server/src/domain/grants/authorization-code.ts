export interface AuthorizationCode {
  codeHash: Buffer;
  grantId: string;
  clientId: string;
  userId: string;
  redirectUri: string;
  scopes: string[];
  resources: string[];
  codeChallenge: string | null;
  nonce: string | null;
  /** RFC 9449 §10: the authorization request's dpop_jkt; the redemption must prove that key. */
  dpopJkt: string | null;
  authTime: Date;
  expiresAt: Date;
}

/** A code as redeemed, with its grant's state: a revoked grant must not mint tokens (RFC 7009 §2.1). */
export interface RedeemedCode extends AuthorizationCode {
  grantRevokedAt: Date | null;
}

/** Implemented by storage/authorization-codes.repo.ts. Codes are stored by hash only. */
export interface AuthorizationCodesRepo {
  save(code: AuthorizationCode): Promise<void>;
  /** Removes codes past their expiry; a replay of one is then simply an unknown code. */
  deleteExpired(before: Date): Promise<number>;
  /**
   * Marks the code used by `clientId` and returns it (RFC 6749 §4.1.2: single use), atomically. A code of
   * another client is left untouched; a used one comes back `replayed`.
   */
  consume(codeHash: Buffer, clientId: string): Promise<{ code: RedeemedCode; replayed: boolean } | undefined>;
}
