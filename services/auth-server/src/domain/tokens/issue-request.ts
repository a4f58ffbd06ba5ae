import type { Client } from '../clients/client';
import type { ActClaim, StoredToken } from './token-record';
import type { DpopBinding } from '../dpop/token-dpop';

/**
 * What one issuance of tokens is for. Its own file: issue-tokens.ts and mint-access-token.ts, which it
 * calls, both read it (no import cycle, issue 19).
 */
export interface IssueRequest {
  client: Client;
  grantId: string;
  userId: string | null;
  scopes: string[];
  audience: string[];
  codeHash?: Buffer;
  /** Rotation keeps the family; a new grant starts one. */
  familyId?: string;
  withRefresh: boolean;
  /** RFC 8693 §2.2.1: an exchanged token lives no longer than the token it came from (seconds). */
  maxLifetimeSeconds?: number;
  /** RFC 8693 §4.1: the actor of an exchanged token. */
  act?: ActClaim;
  idToken?: { nonce: string | null; authTime: Date };
  /** RFC 9449 §5: the request's verified DPoP key; the access token (and a public client's refresh token) is bound to it. */
  dpop?: DpopBinding;
}

/** The columns every token of one issuance shares. */
export type TokenBase = Omit<StoredToken, 'tokenHash' | 'kind' | 'format' | 'jti' | 'expiresAt' | 'dpopJkt'>;
