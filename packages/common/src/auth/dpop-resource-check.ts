import type { DpopNonces } from './dpop-nonce';
import { DpopProofError, DPOP_SIGNING_ALGS, verifyDpopProof } from './dpop-proof';
import type { DpopReplayCache } from './dpop-replay-cache';
import type { Principal } from './principal';

/** Why a resource request's DPoP (or its absence) was refused: the RFC 9449 §7.1 error code. */
export class DpopResourceError extends Error {
  constructor(
    readonly error: 'invalid_token' | 'invalid_dpop_proof' | 'use_dpop_nonce',
    readonly description: string,
  ) {
    super(`${error}: ${description}`);
    this.name = 'DpopResourceError';
  }

  /** RFC 9449 §7.1 challenge: the DPoP scheme with `algs` (§7.1) and the error. */
  challenge(realm?: string): string {
    const parts = [
      ...(realm === undefined ? [] : [`realm=${quote(realm)}`]),
      `error="${this.error}"`,
      `error_description=${quote(this.description)}`,
      `algs="${DPOP_SIGNING_ALGS.join(' ')}"`,
    ];
    return `DPoP ${parts.join(', ')}`;
  }
}

export interface ResourceDpopRequest {
  /** How the token came: `Authorization: Bearer` or `Authorization: DPoP`. */
  scheme: 'bearer' | 'dpop';
  token: string;
  /** The verified token's principal (introspection or JWT): `dpopJkt` when bound. */
  principal: Principal;
  /** The request's `DPoP` header(s). */
  proof: string | string[] | undefined;
  method: string;
  /** The request's absolute URI as the client addressed it (query and fragment are ignored). */
  url: string;
  replay: DpopReplayCache;
  maxAgeSeconds: number;
  futureSkewSeconds?: number;
  /**
   * RFC 9449 §9: this resource server's own nonces, required in every proof when set; a proof without the
   * current (or previous window's) one is `use_dpop_nonce`, and the caller sends `DPoP-Nonce: current()`.
   */
  nonces?: DpopNonces;
}

/**
 * RFC 9449 §7 at a resource server, after the token itself is verified:
 * - a bound token (`cnf.jkt`) presented as Bearer is refused (§7.2: invalid_token), so a stolen one is
 *   useless without the key;
 * - `Authorization: DPoP` needs a bound token and a proof (§4.3) for this method and URI, with `ath` the
 *   token's SHA-256, of the token's key, its `jti` used once.
 * Throws DpopResourceError (the caller renders 401 with `challenge()`).
 */
export async function checkResourceDpop(request: ResourceDpopRequest): Promise<void> {
  const bound = request.principal.dpopJkt;
  if (request.scheme === 'bearer') {
    if (bound !== undefined)
      throw new DpopResourceError(
        'invalid_token',
        'a DPoP-bound token must be presented with the DPoP scheme',
      );
    return;
  }
  if (bound === undefined) throw new DpopResourceError('invalid_token', 'the token is not DPoP-bound');
  let jkt: string;
  try {
    ({ jkt } = await verifyDpopProof(request.proof, {
      method: request.method,
      url: request.url,
      maxAgeSeconds: request.maxAgeSeconds,
      futureSkewSeconds: request.futureSkewSeconds ?? 10,
      replay: request.replay,
      accessToken: request.token,
      ...(request.nonces ? { nonces: request.nonces } : {}),
    }));
  } catch (error) {
    if (error instanceof DpopProofError && error.code === 'use_dpop_nonce')
      throw new DpopResourceError('use_dpop_nonce', 'Resource server requires nonce in DPoP proof');
    if (error instanceof DpopProofError) throw new DpopResourceError('invalid_dpop_proof', error.description);
    throw error;
  }
  if (jkt !== bound) throw new DpopResourceError('invalid_dpop_proof', "the proof's key is not the token's");
}

/** RFC 9110 §5.6.4 quoted-string: escape backslash and double quote. */
function quote(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
