import type { Acr, Authentication } from '../sessions/authentication-methods';
import type { RevokedToken } from '../tokens/token-record';

export interface Grant {
  grantId: string;
  clientId: string;
  userId: string | null;
  scopes: string[];
  resources: string[];
  /** When the user authenticated for this grant; null for client_credentials. */
  authTime: Date | null;
  /** The browser session it was approved in (OIDC Back-Channel Logout §2.1 `sid`); null without one. */
  sid: string | null;
  /** How the user signed in for it (its session's amr/acr), kept for ID tokens on refresh; null without
   *  a sign-in (client_credentials) or for a grant older than migration 0015. */
  authentication: Authentication | null;
  /** What its authorization request's `claims` parameter asked for (OIDC Core §5.5); null without one. */
  claims: GrantClaims | null;
  revokedAt: Date | null;
}

/**
 * An OIDC Core §5.5 `claims` request as the grant keeps it, so the ID tokens of the code, of every refresh
 * and the UserInfo answers agree: the user claims asked for by name (consented with the scopes) and the
 * `acr` its ID tokens carry (§5.5.1.1: one of the values asked for, see claims-request.ts).
 */
export interface GrantClaims {
  idToken: string[];
  userinfo: string[];
  acr?: Acr;
}

/** Which grants to revoke: every given column must match (the columns are never user input). */
export type GrantFilter = Partial<Record<'grant_id' | 'user_id' | 'client_id', string>>;

/**
 * Implemented by storage/grants.repo.ts. Revoking returns the token hashes it touched so the
 * introspection cache can drop exactly those entries (RFC 7009 §2.1: revocation takes effect at once).
 */
export interface GrantsRepo {
  save(
    grant: Omit<Grant, 'grantId' | 'revokedAt' | 'sid' | 'authentication' | 'claims'> & {
      sid?: string | null;
      authentication?: Authentication | null;
      claims?: GrantClaims | null;
    },
  ): Promise<Grant>;
  findById(grantId: string): Promise<Grant | undefined>;
  listByUser(userId: string): Promise<Grant[]>;
  /** Grants with no code or token left: nothing can use them any more. */
  deleteOrphans(before: Date, limit?: number): Promise<number>;
  /** Revokes the matching grants and every token under them, atomically. */
  revokeWhere(
    filter: GrantFilter,
    reason: string,
  ): Promise<{ grantIds: string[]; tokenHashes: Buffer[]; tokens: RevokedToken[] }>;
}
