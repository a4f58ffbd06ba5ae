/**
 * RFC 8693 §4.1 `act`: the party acting for the subject (`sub` of a user actor, `client_id` of the
 * client its token was issued to); a nested `act` is the prior actor in a delegation chain.
 */
// A type, not an interface: it is assignable to the introspection response's Record<string, unknown>.
export type ActClaim = {
  sub?: string;
  client_id: string;
  act?: ActClaim;
};

export interface StoredToken {
  tokenHash: Buffer;
  kind: 'access_token' | 'refresh_token';
  format: 'opaque' | 'jwt';
  jti: string | null;
  grantId: string;
  clientId: string;
  userId: string | null;
  scopes: string[];
  audience: string[];
  familyId: string | null;
  codeHash: Buffer | null;
  issuedAt: Date;
  expiresAt: Date | null;
  /** Only on tokens issued by a token exchange with an actor (RFC 8693 §4.1). */
  act?: ActClaim | null;
  /** RFC 9449 §6: the thumbprint of the key the token is bound to; null: a bearer token. */
  dpopJkt?: string | null;
}

/** What a revocation touched: enough to clear caches and to tell resource servers (jti). */
export interface RevokedToken {
  tokenHash: Buffer;
  kind: StoredToken['kind'];
  jti: string | null;
}

/** A token with what introspection needs: its grant's state and the user's name. */
export interface TokenRecord extends StoredToken {
  revokedAt: Date | null;
  rotatedAt: Date | null;
  lastUsedAt: Date | null;
  grantRevokedAt: Date | null;
  /** The grant's user authentication time (OIDC Core §12.2: a refreshed ID token repeats it). */
  grantAuthTime: Date | null;
  username: string | null;
}

/** Implemented by storage/tokens.repo.ts. Tokens are stored by hash only. */
export interface TokensRepo {
  /** Saves the tokens of one issuance together. */
  saveAll(tokens: StoredToken[]): Promise<void>;
  /** With the grant's state: a revoked or deleted grant makes every token inactive. */
  findByHash(tokenHash: Buffer): Promise<TokenRecord | undefined>;
  /**
   * Rotation (RFC 9700 §4.14.2): true only for the first caller; inside a transaction a concurrent caller
   * waits for the winner's commit and then finds the token rotated.
   */
  markRotated(tokenHash: Buffer): Promise<boolean>;
  revokeByHash(tokenHash: Buffer): Promise<RevokedToken[]>;
  /** Every token of a refresh family: the refresh tokens and the access tokens issued with them. */
  revokeFamily(familyId: string): Promise<RevokedToken[]>;
  /** Removes at most `limit` tokens that expired before `before`; returns how many. */
  deleteExpired(before: Date, limit?: number): Promise<number>;
}
