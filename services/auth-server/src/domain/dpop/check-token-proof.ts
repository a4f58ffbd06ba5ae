import { DpopProofError, OAuthError, verifyDpopProof } from '@acme/common';
import type { AuthContext } from '../auth-context';
import type { Client } from '../clients/client';
import type { DpopBinding, TokenDpop } from './token-dpop';

/** How far a proof's `iat` may be ahead of our clock (RFC 9449 §11.1 leaves the skew to the server). */
export const DPOP_FUTURE_SKEW_SECONDS = 10;

/**
 * RFC 9449 §5 at /token: a `DPoP` header is checked as §4.3 lists (htu is our token endpoint as discovery
 * publishes it, `${ISSUER}/token`); its key binds what is issued. None: a bearer request, unless the
 * client registered `dpop_bound_access_tokens` (§5.2). Errors are `invalid_dpop_proof` (400, §5) or
 * `use_dpop_nonce` with a fresh `DPoP-Nonce` (§8).
 */
export async function checkTokenProof(
  ctx: AuthContext,
  dpop: TokenDpop,
  header: string | string[] | undefined,
  client: Client,
): Promise<DpopBinding | undefined> {
  if (header === undefined) {
    if (client.dpopBoundAccessTokens)
      throw new OAuthError('invalid_dpop_proof', 'this client must send a DPoP proof');
    return undefined;
  }
  return checkEndpointProof(ctx, dpop, header, '/token');
}

/** One proof for a POST to our endpoint at `path` (under ISSUER); the errors of checkTokenProof. */
export async function checkEndpointProof(
  ctx: AuthContext,
  dpop: TokenDpop,
  header: string | string[],
  path: string,
): Promise<DpopBinding> {
  try {
    const proof = await verifyDpopProof(header, {
      method: 'POST',
      url: `${ctx.config.ISSUER}${path}`,
      maxAgeSeconds: ctx.config.DPOP_PROOF_MAX_AGE_SECONDS,
      futureSkewSeconds: DPOP_FUTURE_SKEW_SECONDS,
      replay: dpop.replay,
      ...(dpop.nonces ? { nonces: dpop.nonces } : {}),
    });
    return { jkt: proof.jkt };
  } catch (error) {
    if (!(error instanceof DpopProofError)) throw error;
    const headers: Record<string, string> =
      error.code === 'use_dpop_nonce' && dpop.nonces ? { 'DPoP-Nonce': dpop.nonces.current() } : {};
    throw new OAuthError(error.code, error.description, headers);
  }
}
