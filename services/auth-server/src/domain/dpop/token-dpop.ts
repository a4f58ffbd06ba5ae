import type { DpopNonces, DpopReplayCache } from '@acme/common';

/** What /token needs to check DPoP proofs (RFC 9449 §5), built once in auth-core.ts. */
export interface TokenDpop {
  /** Used proof `jti`s: Redis when configured (every instance), else this process. */
  replay: DpopReplayCache;
  /** Set when DPOP_NONCE_REQUIRED: the server's nonces (§8), the same on every instance. */
  nonces?: DpopNonces;
}

/** A verified proof's key: what the issued tokens are bound to. */
export interface DpopBinding {
  /** RFC 7638 SHA-256 thumbprint, base64url (`cnf.jkt`, RFC 9449 §6.1). */
  jkt: string;
}

/** RFC 9449 §5.1: what the token response says of a DPoP-bound access token. */
export const DPOP_TOKEN_TYPE = 'DPoP';
