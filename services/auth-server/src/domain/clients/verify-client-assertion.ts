import { createHash, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { AuthContext } from '../auth-context';
import { createClientSecretEncryption } from '../crypto/key-encryption';
import type { AssertionJtiStore } from './assertion-jti-store';
import type { Client } from './client';
import type { ClientJwksFetcher } from './client-jwks-fetcher';
import { algsForKey, publicKeyOf, type ClientJwk } from './client-jwks';
import { findClientKey } from './find-client-key';

/** RFC 7523 §2.2: the only client_assertion_type we take. */
export const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** The longest lifetime (exp − now) an assertion may claim: a longer one would be a reusable credential. */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;
/** Allowed clock difference between the client and us. */
const CLOCK_TOLERANCE_SECONDS = 30;
const MAX_ASSERTION_LENGTH = 8192;

/** What verifying needs besides the context: the used-jti store and the jwks_uri fetcher. */
export interface ClientAssertionDeps {
  jtis: AssertionJtiStore;
  remoteJwks: ClientJwksFetcher;
}

/** Why an assertion was refused: audited, never sent (the answer is always `invalid_client`). */
export type AssertionFailure =
  | 'malformed'
  | 'unknown_client'
  | 'not_private_key_jwt'
  | 'jwks_unavailable'
  | 'unknown_kid'
  | 'bad_signature_or_claims'
  | 'iss_sub_mismatch'
  | 'missing_jti'
  | 'lifetime_too_long'
  | 'wrong_audience'
  | 'wrong_typ'
  | 'replayed_jti';

/**
 * RFC 7523 §3 client authentication (`private_key_jwt`, OIDC Core §9). `iss` = `sub` = the client_id;
 * the key is the client's registered key named by the header's `kid` (or its only key), verified with
 * an explicit algorithm list for that key's type (RFC 8725 §3.1: `none`, HS256 with a public key as
 * secret and algorithm switches are refused); `exp` required and at most 5 minutes ahead; `jti`
 * required and single use until the assertion expires. `aud` must be our issuer identifier as its sole
 * value (RFC 7523bis §4, the answer to audience injection: no token endpoint URL, no other audience).
 * Returns the client or the failure's reason.
 */
export async function verifyClientAssertion(
  ctx: AuthContext,
  deps: ClientAssertionDeps,
  assertion: string,
): Promise<{ client: Client } | { failure: AssertionFailure; clientId?: string }> {
  if (assertion.length > MAX_ASSERTION_LENGTH) return { failure: 'malformed' };
  const decoded = jwt.decode(assertion, { complete: true });
  if (!decoded || typeof decoded.payload !== 'object') return { failure: 'malformed' };
  const { payload, header } = decoded;
  const clientId = payload.iss;
  if (typeof clientId !== 'string' || clientId.length > 200) return { failure: 'malformed' };
  const client = await ctx.repos.clients.findById(clientId);
  if (!client) return { failure: 'unknown_client', clientId };
  let signer: AssertionSigner = client;
  if (client.tokenEndpointAuthMethod === 'client_secret_jwt' && client.secretCiphertext) {
    // RFC 7523 §2.2 / OIDC Core §9 client_secret_jwt: the HMAC key is the client secret itself.
    const secret = createClientSecretEncryption(ctx.config.TOKEN_SIGNING_SECRET).decrypt(
      client.secretCiphertext,
    );
    signer = { jwks: null, jwksUri: null, hmacSecret: secret };
  } else if (client.tokenEndpointAuthMethod !== 'private_key_jwt' || !(client.jwks || client.jwksUri))
    return { failure: 'not_private_key_jwt', clientId };
  const checked = await verifyAssertionKeys(ctx, deps, assertion, header, clientId, signer);
  if (checked) return { failure: checked, clientId };
  return { client };
}

/** Who signs an assertion: a client, or a resource server at /token_info (`namespace` keeps their jtis apart). */
export interface AssertionSigner {
  jwks: { keys: ClientJwk[] } | null;
  jwksUri: string | null;
  /** Prefix of the used-jti key: a client and a resource server of one id do not share jtis. */
  namespace?: string;
  /** client_secret_jwt: the shared secret, used as the HMAC key instead of a public key. */
  hmacSecret?: string;
}

/**
 * client_secret_jwt algorithms and their output sizes: RFC 7518 §3.2 requires a key at least as long as
 * the hash output, so a secret too short for an algorithm is not accepted with it.
 */
export const CLIENT_SECRET_JWT_ALGS = ['HS256', 'HS384', 'HS512'] as const;
const HMAC_OUTPUT_BYTES = { HS256: 32, HS384: 48, HS512: 64 } as const;

function hmacAlgsFor(secret: Buffer): jwt.Algorithm[] {
  return CLIENT_SECRET_JWT_ALGS.filter((alg) => secret.length >= HMAC_OUTPUT_BYTES[alg]);
}

/**
 * RFC 7523bis §4 explicit typing: `client-authentication+jwt` (with or without the `application/` prefix,
 * compared case-insensitively as RFC 7515 §4.1.9 says media types are), or no `typ`/`JWT` from clients
 * that predate it. Any other type is another kind of JWT (a request object, a logout token, a DPoP proof)
 * and never a client's credential (RFC 8725 §3.11).
 */
function acceptableTyp(typ: unknown): boolean {
  if (typ === undefined) return true;
  if (typeof typ !== 'string') return false;
  const t = typ.toLowerCase().replace(/^application\//, '');
  return t === 'jwt' || t === 'client-authentication+jwt';
}

/** RFC 7523bis §4: the issuer identifier as the sole audience (a one-element array is the same value). */
function isSoleIssuerAudience(aud: unknown, issuer: string): boolean {
  return aud === issuer || (Array.isArray(aud) && aud.length === 1 && aud[0] === issuer);
}

/**
 * The checks after the signer is known: `typ`, its key by `kid` (or its only key), signature with that key's
 * algorithms, `iss` = `sub` = `id`, `aud` = the issuer alone, `exp` at most 5 minutes ahead, `jti` single use.
 * Returns undefined when the assertion is good, else why it is not.
 */
export async function verifyAssertionKeys(
  ctx: AuthContext,
  deps: ClientAssertionDeps,
  assertion: string,
  header: { kid?: string; typ?: unknown },
  id: string,
  signer: AssertionSigner,
): Promise<AssertionFailure | undefined> {
  if (!acceptableTyp(header.typ)) return 'wrong_typ';
  let jwk: ClientJwk | undefined;
  let verifyKey: KeyObject | Buffer | undefined;
  let algorithms: jwt.Algorithm[] = [];
  if (signer.hmacSecret !== undefined) {
    verifyKey = Buffer.from(signer.hmacSecret, 'utf8');
    algorithms = hmacAlgsFor(verifyKey);
  } else {
    const found = await findClientKey(deps.remoteJwks, signer, header.kid);
    if (found === 'unavailable') return 'jwks_unavailable';
    jwk = found;
  }
  if (jwk) {
    verifyKey = publicKeyOf(jwk);
    algorithms = algsForKey(jwk);
  }
  if (!verifyKey) return 'unknown_kid';
  if (algorithms.length === 0) return 'bad_signature_or_claims';
  const issuer = ctx.config.ISSUER;
  let claims: jwt.JwtPayload;
  try {
    // jsonwebtoken compares an HMAC with crypto.timingSafeEqual; the algorithm list is explicit either way.
    claims = jwt.verify(assertion, verifyKey, {
      algorithms,
      issuer: id,
      subject: id,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      complete: false,
    }) as jwt.JwtPayload;
  } catch {
    return 'bad_signature_or_claims';
  }
  if (claims.sub !== id) return 'iss_sub_mismatch';
  if (!isSoleIssuerAudience(claims.aud, issuer)) return 'wrong_audience';
  const now = Math.floor(Date.now() / 1000);
  if (typeof claims.exp !== 'number') return 'bad_signature_or_claims';
  if (claims.exp - now > MAX_ASSERTION_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS) return 'lifetime_too_long';
  if (typeof claims.jti !== 'string' || claims.jti.length === 0 || claims.jti.length > 200)
    return 'missing_jti';
  // Claimed last, so a refused assertion does not use up its jti; kept until it could no longer verify.
  const key = createHash('sha256')
    .update(`${signer.namespace ?? ''}${id}\0${claims.jti}`)
    .digest('base64url');
  const ttl = Math.max(1, claims.exp - now + CLOCK_TOLERANCE_SECONDS);
  if (!(await deps.jtis.claim(key, ttl))) return 'replayed_jti';
  return undefined;
}
