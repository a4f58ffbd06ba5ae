import type { ClientJwks } from './client-jwks';

/** A registered OAuth client (RFC 6749 §2) and the storage the domain needs for it. */
export interface Client {
  clientId: string;
  secretHash: Buffer | null;
  /** client_secret_jwt only (0013): the secret sealed with AES-256-GCM, for verifying its HMAC assertions. */
  secretCiphertext: string | null;
  name: string;
  clientType: 'confidential' | 'public';
  applicationType: 'web' | 'native';
  redirectUris: string[];
  grantTypes: string[];
  responseTypes: string[];
  scopes: string[];
  tokenFormat: 'opaque' | 'jwt';
  jwtAlg: 'HS256' | 'RS256' | 'ES256';
  /** null: non-expiring (opaque only). */
  accessTokenTtlSeconds: number | null;
  /** null: no refresh tokens. */
  refreshTokenTtlSeconds: number | null;
  refreshIdleTtlSeconds: number | null;
  /** OIDC RP-Initiated Logout §3.1: where the user may be sent after logout (exact match). */
  postLogoutRedirectUris: string[];
  /** OIDC Back-Channel Logout §2.2: where logout tokens are POSTed; null: none sent. */
  backchannelLogoutUri: string | null;
  /** Back-Channel Logout §2.2: the client needs `sid` in its logout tokens. */
  backchannelLogoutSessionRequired: boolean;
  /** RFC 9126 §6: /authorize takes its requests only pushed (`request_uri` from POST /par). */
  requirePushedAuthorizationRequests: boolean;
  /** RFC 9449 §5.2 `dpop_bound_access_tokens`: /token refuses its requests without a DPoP proof. */
  dpopBoundAccessTokens: boolean;
  /** RFC 9101 §10.5 `require_signed_request_object`: /authorize and /par refuse it requests without `request`. */
  requireSignedRequestObject: boolean;
  /** RFC 7591 §2: how it authenticates at /token (either secret method for `client_secret_basic`). */
  tokenEndpointAuthMethod: 'client_secret_basic' | 'client_secret_jwt' | 'private_key_jwt' | 'none';
  /** RFC 7591 §2 `jwks`: its public keys for private_key_jwt (RFC 7523); null otherwise. */
  jwks: ClientJwks | null;
  /** RFC 7591 §2 `jwks_uri`: where its public keys are fetched instead (never both). */
  jwksUri: string | null;
  createdAt: Date;
}

/** Implemented by storage/clients.repo.ts. Lookups skip disabled clients. */
export interface ClientsRepo {
  save(client: Omit<Client, 'createdAt'>): Promise<Client>;
  findById(clientId: string): Promise<Client | undefined>;
  list(): Promise<Client[]>;
  /** The longest JWT access-token lifetime: how long a retired signing key must stay published. */
  maxJwtAccessTtl(): Promise<number>;
  /** A new secret: its hash, and for client_secret_jwt its sealed form (else null). */
  updateSecretHash(clientId: string, secretHash: Buffer, secretCiphertext?: string | null): Promise<void>;
  delete(clientId: string): Promise<boolean>;
}
